// A free loopback port (for a process that must come back on the same port): the shared test kit's.
export { freePort } from '@rsnotify/service-kit/testing';
