// @rsnotify/hub public surface.
export {};
