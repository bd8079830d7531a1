// `rsnotify-hub admin ...`: admin tokens (always on the database, like `source add`), and the admin
// API's operations, either through a running hub (`--hub URL --admin-token T`, which works with any
// number of hub processes and a remote database) or directly on the database (`--db FILE`).
import { Command } from 'commander';
import { request } from 'undici';
import { openAdminStore, openRepository } from '../store/index.js';
import { TenantDirectory } from '../tenants/index.js';
import { createAdminToken } from './auth.js';
import { tokenFingerprint } from './display.js';
import { AdminService } from './service.js';

interface Target {
  hub?: string;
  adminToken?: string;
  db?: string;
}

/** One admin operation: a method and path of the API, or the same call on a local AdminService. */
interface Operation {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  readonly local: (s: AdminService) => Promise<unknown>;
}

export class AdminCliError extends Error {}

function out(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

async function viaApi(hub: string, token: string, op: Operation): Promise<unknown> {
  const base = new URL(hub);
  const url = new URL(`/admin/api${op.path}`, base.origin);
  const res = await request(url, {
    method: op.method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(op.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(op.body !== undefined ? { body: JSON.stringify(op.body) } : {}),
  });
  const text = await res.body.text();
  const data = text ? (JSON.parse(text) as unknown) : {};
  if (res.statusCode >= 400) {
    const e = data as { error?: string; message?: string };
    throw new AdminCliError(`${res.statusCode} ${e.error ?? ''}: ${e.message ?? text}`);
  }
  return data;
}

async function viaDb(db: string, op: Operation): Promise<unknown> {
  const repo = await openRepository(db, { listen: false, poolSize: 2 });
  const admin = await openAdminStore(db);
  try {
    return await op.local(
      new AdminService({ repo, admin, tenants: new TenantDirectory(repo), now: Date.now }),
    );
  } finally {
    await admin.close();
    await repo.close();
  }
}

function run(target: Target, defaultDb: string, op: Operation): Promise<unknown> {
  const token = target.adminToken ?? process.env.RSNOTIFY_HUB_ADMIN_TOKEN;
  if (target.hub) {
    if (!token) throw new AdminCliError('--hub needs --admin-token (or RSNOTIFY_HUB_ADMIN_TOKEN)');
    return viaApi(target.hub, token, op);
  }
  return viaDb(target.db ?? process.env.RSNOTIFY_HUB_DB ?? defaultDb, op);
}

function withTarget(cmd: Command): Command {
  return cmd
    .option('--hub <url>', 'a running hub (its URL); uses the admin API')
    .option('--admin-token <token>', 'admin token for --hub [env RSNOTIFY_HUB_ADMIN_TOKEN]')
    .option(
      '--db <file>',
      'work on this database directly instead (SQLite file or postgres:// URL)',
    );
}

export function registerAdminCommands(program: Command, defaultDb: string): void {
  const admin = program
    .command('admin')
    .description('operate the hub: admin tokens, Sources, subscriptions, delivery health');

  const token = admin
    .command('token')
    .description('admin tokens for /admin (the console and the admin API)');
  token
    .command('create <name>')
    .description('create an admin token; prints it ONCE on stdout (only a hash is stored)')
    .option('--db <file>', `SQLite database file (default ${defaultDb})`)
    .action(async (name: string, o: { db?: string }) => {
      const store = await openAdminStore(o.db ?? process.env.RSNOTIFY_HUB_DB ?? defaultDb);
      try {
        const { token: t } = await createAdminToken(store, name, Date.now());
        process.stderr.write(
          `Admin token ${name} created. It is shown only now; log in at /admin/ or send "Authorization: Bearer <token>".\n`,
        );
        process.stdout.write(`${t}\n`);
      } finally {
        await store.close();
      }
    });
  token
    .command('list')
    .description('list admin tokens (names and fingerprints, never the tokens)')
    .option('--db <file>', 'SQLite database file')
    .action(async (o: { db?: string }) => {
      const store = await openAdminStore(o.db ?? process.env.RSNOTIFY_HUB_DB ?? defaultDb);
      try {
        for (const t of await store.listAdminTokens()) {
          out({
            name: t.name,
            fingerprint: tokenFingerprint(t.tokenHash),
            createdAt: new Date(t.createdAt).toISOString(),
            lastUsedAt: t.lastUsedAt ? new Date(t.lastUsedAt).toISOString() : null,
          });
        }
      } finally {
        await store.close();
      }
    });
  token
    .command('revoke <name>')
    .description('revoke an admin token and end its console sessions')
    .option('--db <file>', 'SQLite database file')
    .action(async (name: string, o: { db?: string }) => {
      const store = await openAdminStore(o.db ?? process.env.RSNOTIFY_HUB_DB ?? defaultDb);
      try {
        const removed = await store.revokeAdminToken(name);
        out({ event: removed ? 'admin_token.revoked' : 'admin_token.not_found', name });
        if (!removed) process.exitCode = 1;
      } finally {
        await store.close();
      }
    });

  const sources = admin.command('sources').description('Sources (publishers)');
  withTarget(sources.command('list')).action(async (o: Target) => {
    const r = (await run(o, defaultDb, {
      method: 'GET',
      path: '/sources',
      local: async (s) => ({ sources: await s.sources() }),
    })) as { sources: unknown[] };
    for (const s of r.sources) out(s);
  });
  withTarget(sources.command('add <name>'))
    .requiredOption('--topic-prefix <url...>', 'topic URL prefixes the Source owns')
    .option(
      '--allow-callback <prefix...>',
      'only callbacks starting with one of these may subscribe',
    )
    .action(
      async (name: string, o: Target & { topicPrefix: string[]; allowCallback?: string[] }) => {
        const body = { name, topicPrefixes: o.topicPrefix, allowCallbacks: o.allowCallback ?? [] };
        out(
          await run(o, defaultDb, {
            method: 'POST',
            path: '/sources',
            body,
            local: (s) => s.addSource(body),
          }),
        );
        process.stderr.write('The publish token above is shown only now.\n');
      },
    );
  withTarget(sources.command('remove <name>')).action(async (name: string, o: Target) => {
    await run(o, defaultDb, {
      method: 'DELETE',
      path: `/sources/${encodeURIComponent(name)}`,
      local: (s) => s.removeSource(name),
    });
    out({ event: 'source.removed', name });
  });
  withTarget(sources.command('rotate-token <name>')).action(async (name: string, o: Target) => {
    out(
      await run(o, defaultDb, {
        method: 'POST',
        path: `/sources/${encodeURIComponent(name)}/rotate-token`,
        local: (s) => s.rotateSourceToken(name),
      }),
    );
    process.stderr.write(
      'The new publish token above is shown only now; the old one stops working.\n',
    );
  });

  const subs = admin
    .command('subscriptions')
    .description('subscriptions and their delivery health');
  withTarget(subs.command('list'))
    .option('--topic <url>')
    .option('--callback-origin <origin>')
    .option('--state <state>', 'active|expired')
    .option('--health <health>', 'healthy|retrying|failing')
    .action(
      async (
        o: Target & { topic?: string; callbackOrigin?: string; state?: string; health?: string },
      ) => {
        const q = new URLSearchParams();
        for (const k of ['topic', 'callbackOrigin', 'state', 'health'] as const)
          if (o[k]) q.set(k, o[k]!);
        const filter = Object.fromEntries(q) as Parameters<AdminService['subscriptions']>[0];
        const r = (await run(o, defaultDb, {
          method: 'GET',
          path: `/subscriptions?${q.toString()}`,
          local: async (s) => ({ subscriptions: await s.subscriptions(filter) }),
        })) as { subscriptions: unknown[] };
        for (const s of r.subscriptions) out(s);
      },
    );
  const idOf = (raw: string): number => {
    if (!/^\d+$/.test(raw)) throw new AdminCliError(`not a subscription id: ${raw}`);
    return Number(raw);
  };
  withTarget(subs.command('show <id>')).action(async (id: string, o: Target) => {
    out(
      await run(o, defaultDb, {
        method: 'GET',
        path: `/subscriptions/${idOf(id)}`,
        local: (s) => s.subscription(idOf(id)),
      }),
    );
  });
  withTarget(subs.command('delete <id>')).action(async (id: string, o: Target) => {
    await run(o, defaultDb, {
      method: 'DELETE',
      path: `/subscriptions/${idOf(id)}`,
      local: (s) => s.deleteSubscription(idOf(id)),
    });
    out({ event: 'subscription.deleted', id: idOf(id) });
  });
  withTarget(
    subs
      .command('retry <id>')
      .description("send the subscription's given-up notifications again now (needs --hub)"),
  ).action(async (id: string, o: Target) => {
    out(
      await run(o, defaultDb, {
        method: 'POST',
        path: `/subscriptions/${idOf(id)}/retry-given-up`,
        local: async (s) => ({ results: await s.retryGivenUp(idOf(id)) }),
      }),
    );
  });

  withTarget(admin.command('topics').description('topics: last seq, rate, subscribers')).action(
    async (o: Target) => {
      const r = (await run(o, defaultDb, {
        method: 'GET',
        path: '/topics',
        local: async (s) => ({ topics: await s.topics() }),
      })) as { topics: unknown[] };
      for (const t of r.topics) out(t);
    },
  );
  withTarget(admin.command('rejections').description('recent refused requests')).action(
    async (o: Target) => {
      const r = (await run(o, defaultDb, {
        method: 'GET',
        path: '/rejections',
        local: async (s) => ({ rejections: await s.rejections() }),
      })) as { rejections: unknown[] };
      for (const t of r.rejections) out(t);
    },
  );
}
