// listener/: the hub's HTTP server edge (timeouts, refused request heads, connections per client).
export { startListener, type ListenerOptions } from './serve.js';
export { limitConnectionsPerClient, type ConnectionLimitEvents } from './connection-limit.js';
