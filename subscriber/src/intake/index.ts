// intake/: the callback endpoint the hub calls (verification GET, delivery POST -> inbox).
export * from './routes.js';
