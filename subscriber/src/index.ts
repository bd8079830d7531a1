// @rsnotify/subscriber public surface.
export {};
