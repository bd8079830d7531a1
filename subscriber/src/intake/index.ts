// intake/: the callback endpoint the hub calls (verification GET, delivery POST -> inbox).
export { callbackToken, createIntake, type Intake, type IntakeDeps } from './routes.js';
