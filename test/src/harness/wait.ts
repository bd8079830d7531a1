// Waiting on outcomes: the shared test kit's waitFor and sleep.
export { sleep, waitFor, type WaitOptions } from '@rsnotify/service-kit/testing';
