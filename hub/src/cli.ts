#!/usr/bin/env node
// rsnotify-hub command line (filled by the hub issue).
console.error('rsnotify-hub: not implemented yet');
process.exit(2);
