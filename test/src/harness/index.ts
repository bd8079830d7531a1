// Process harness for cross-package tests, the demo and benchmarks: free ports, child processes that
// run the real hub and subscriber CLIs from source (so kill -9 is a real crash), and polling waits.
export * from './ports.js';
export * from './wait.js';
export * from './processes.js';
export * from './mirror.js';
