#!/usr/bin/env node
// rsnotify-subscriber command line (filled by the subscriber issue).
console.error('rsnotify-subscriber: not implemented yet');
process.exit(2);
