// DocumentError is defined in errors/ (the safe XML layer raises it too); documents/ re-exports it.
export { DocumentError, type DocumentErrorCode } from '../errors/index.js';
