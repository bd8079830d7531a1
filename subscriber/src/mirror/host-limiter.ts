// The mirror's limit of concurrent fetches per host, so one Source is not flooded by a baseline.
/** A counting semaphore per host. */
export class HostLimiter {
  private readonly hosts = new Map<string, { active: number; waiting: (() => void)[] }>();
  constructor(private readonly limit: number) {}

  async acquire(host: string): Promise<void> {
    let h = this.hosts.get(host);
    if (!h) {
      h = { active: 0, waiting: [] };
      this.hosts.set(host, h);
    }
    if (h.active < this.limit) {
      h.active++;
      return;
    }
    await new Promise<void>((resolve) => h.waiting.push(resolve));
  }

  release(host: string): void {
    const h = this.hosts.get(host);
    if (!h) return;
    const next = h.waiting.shift();
    if (next) {
      next();
      return;
    } // the slot passes straight to the next waiter
    h.active--;
    if (h.active === 0) this.hosts.delete(host);
  }
}
