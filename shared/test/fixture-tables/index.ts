// Every fixture's expectation row, from the per-collection tables.
import { ARCHIVES_EXAMPLES } from './archives-examples.js';
import type { Expectation } from './common.js';
import { SIMULATOR_CAPTURES } from './simulator-captures.js';
import { SPEC_EXAMPLES_V1_0 } from './spec-examples-v1-0.js';
import { SPEC_EXAMPLES_V1_1 } from './spec-examples-v1-1.js';
import { TOOL_TESTDATA } from './tool-testdata.js';
import { VALIDATOR_2014 } from './validator-2014.js';

export { FIXTURES, listFiles, read, type Expectation } from './common.js';
export { NOT_DOCUMENTS, REFUSED } from './not-documents.js';

export const DOCUMENTS: Record<string, Expectation> = {
  ...TOOL_TESTDATA,
  ...SIMULATOR_CAPTURES,
  ...ARCHIVES_EXAMPLES,
  ...SPEC_EXAMPLES_V1_0,
  ...SPEC_EXAMPLES_V1_1,
  ...VALIDATOR_2014,
};
