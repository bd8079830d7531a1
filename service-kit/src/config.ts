// One way to configure both daemons. Every option has a flag name (`--lease-min`), the same name
// as its config-file key (`leaseMin`) and, optionally, an environment variable. Precedence:
// flag > environment > file > default. Durations everywhere take a number of milliseconds or text
// with a unit (`"500ms"`, `"5s"`, `"2m"`). A renamed file key keeps working for a while: the old key
// is read with a one-line deprecation warning. Every problem is a ConfigError (RSN_CONFIG_INVALID)
// naming the key and where the value came from.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { RsnotifyError, type CodesOf } from '@rsnotify/shared';
import { SERVICE_KIT_ERRORS } from './errors.js';
import { parseDuration } from './duration.js';

export type ConfigOrigin = 'flag' | 'env' | 'file' | 'default';

export class ConfigError extends RsnotifyError<CodesOf<typeof SERVICE_KIT_ERRORS, 'ConfigError'>> {
  constructor(
    message: string,
    details: { key?: string; from?: ConfigOrigin; file?: string; [more: string]: unknown } = {},
    cause?: unknown,
  ) {
    super('RSN_CONFIG_INVALID', message, { details, cause });
    this.name = 'ConfigError';
  }
}

export type ConfigValueKind = 'string' | 'int' | 'bool' | 'duration';

export interface ConfigOption {
  /** The flag without dashes, e.g. `db`, `lease-min`; the file key is its camelCase (`leaseMin`). */
  readonly flag: string;
  readonly kind: ConfigValueKind;
  /** The environment variable, e.g. `RSNOTIFY_HUB_DB`. */
  readonly env?: string;
  /** Former file keys (dotted paths for nested ones), read with a deprecation warning. */
  readonly deprecatedKeys?: readonly string[];
  readonly default?: string | number | boolean;
  /** For `--help`. */
  readonly help?: string;
  /** The flag's value placeholder, e.g. `<file>`; none for a boolean flag. */
  readonly placeholder?: string;
}

export interface ConfigInput {
  /** Values given on the command line, keyed by file key (camelCase); only the flags really given. */
  readonly flags?: Readonly<Record<string, unknown>>;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A YAML or JSON file to read. */
  readonly file?: string;
  /** The file's content when already parsed (then `file` only names it in messages). */
  readonly fileData?: unknown;
  /** Where deprecation warnings go (one line each); default stderr. */
  readonly warn?: (line: string) => void;
}

export interface LoadedConfig {
  /** Every option that has a value (given or default), by file key, converted to its kind. */
  readonly values: Record<string, unknown>;
  readonly origins: Record<string, ConfigOrigin>;
  /** File keys that are not options (nested sections such as `sources`): the package validates them. */
  readonly rest: Record<string, unknown>;
}

/** `lease-min` -> `leaseMin`. */
export function optionKey(flag: string): string {
  return flag.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * The options really given on the command line, keyed by file key: a CLI parser's values filtered by
 * where each came from (`sourceOf`, e.g. commander's getOptionValueSource, says `cli` for a flag), so
 * a parser's own defaults never hide the environment or the file.
 */
export function givenFlags(
  options: readonly ConfigOption[],
  values: Readonly<Record<string, unknown>>,
  sourceOf: (key: string) => string | undefined,
): Record<string, unknown> {
  const flags: Record<string, unknown> = {};
  for (const o of options) {
    const key = optionKey(o.flag);
    if (sourceOf(key) === 'cli') flags[key] = values[key];
  }
  return flags;
}

/** Reads a YAML or JSON config file (JSON is YAML) into a plain object. */
export function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `cannot read config file ${file}: ${(err as Error).message}`,
      { file },
      err,
    );
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw new ConfigError(
      `config file ${file} is not valid YAML/JSON: ${(err as Error).message}`,
      { file },
      err,
    );
  }
  return asObject(data ?? {}, file);
}

function asObject(data: unknown, file: string | undefined): Record<string, unknown> {
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new ConfigError(
      `config file ${file ?? ''} must hold an object of keys`.replace('  ', ' '),
      {
        ...(file ? { file } : {}),
        from: 'file',
      },
    );
  return { ...(data as Record<string, unknown>) };
}

/** Converts one raw value to the option's kind; `where` names its origin in the error. */
export function convertOption(
  option: ConfigOption,
  raw: unknown,
  from: ConfigOrigin,
  where: string,
): unknown {
  const key = optionKey(option.flag);
  const fail = (what: string): never => {
    throw new ConfigError(`${where}: invalid ${key}: must be ${what}, not ${JSON.stringify(raw)}`, {
      key,
      from,
    });
  };
  switch (option.kind) {
    case 'bool': {
      if (typeof raw === 'boolean') return raw;
      const s = String(raw as string).toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(s)) return true;
      if (['0', 'false', 'no', 'off', ''].includes(s)) return false;
      return fail('true or false');
    }
    case 'int': {
      if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) return raw;
      if (typeof raw === 'string' && /^\d+$/.test(raw)) return Number(raw);
      return fail('a non-negative integer');
    }
    case 'duration': {
      // On the command line and in the environment a bare number is milliseconds, as in the file.
      const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
      if (typeof value !== 'number' && typeof value !== 'string')
        return fail('a duration (e.g. 500ms, 5s, 2m)');
      try {
        return parseDuration(value);
      } catch {
        return fail('a duration (e.g. 500ms, 5s, 2m)');
      }
    }
    default:
      if (typeof raw !== 'string' || raw === '') return fail('a non-empty string');
      return raw;
  }
}

function takePath(obj: Record<string, unknown>, path: string): unknown {
  const parts = path.split('.');
  let parent: Record<string, unknown> = obj;
  for (const p of parts.slice(0, -1)) {
    const next = parent[p];
    if (typeof next !== 'object' || next === null) return undefined;
    parent = next as Record<string, unknown>;
  }
  const last = parts[parts.length - 1]!;
  const value = parent[last];
  delete parent[last];
  return value;
}

/** Drops nested sections that deprecated keys left empty (`retry: {}`). */
function dropEmpty(obj: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(obj))
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0)
      delete obj[k];
}

/** Resolves the declared options from flags, environment, file and defaults, in that order. */
export function loadConfig(options: readonly ConfigOption[], input: ConfigInput): LoadedConfig {
  const warn = input.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const fileName = input.file ?? 'config';
  const file =
    input.fileData !== undefined
      ? asObject(structuredClone(input.fileData), input.file)
      : input.file !== undefined
        ? readConfigFile(input.file)
        : {};
  const values: Record<string, unknown> = {};
  const origins: Record<string, ConfigOrigin> = {};
  for (const option of options) {
    const key = optionKey(option.flag);
    let fromFile = key in file ? file[key] : undefined;
    delete file[key];
    for (const old of option.deprecatedKeys ?? []) {
      const value = takePath(file, old);
      if (value === undefined) continue;
      warn(
        `${fileName}: the key "${old}" is deprecated; use "${key}"${fromFile === undefined ? '' : ` (both given: "${key}" wins)`}`,
      );
      fromFile ??= value;
    }
    const flag = input.flags?.[key];
    const env = option.env ? input.env?.[option.env] : undefined;
    let value: unknown;
    let origin: ConfigOrigin | undefined;
    if (flag !== undefined) {
      value = convertOption(option, flag, 'flag', `--${option.flag}`);
      origin = 'flag';
    } else if (env !== undefined) {
      value = convertOption(option, env, 'env', option.env!);
      origin = 'env';
    } else if (fromFile !== undefined) {
      value = convertOption(option, fromFile, 'file', fileName);
      origin = 'file';
    } else if (option.default !== undefined) {
      value = convertOption(option, option.default, 'default', 'default');
      origin = 'default';
    }
    if (origin !== undefined) {
      values[key] = value;
      origins[key] = origin;
    }
  }
  dropEmpty(file);
  return { values, origins, rest: file };
}
