// Reads the README's lists that code must agree with, so a test can fail when they drift.

/**
 * The event names of the bulleted list under `### Log events` inside the `## {section}` section:
 * every backticked `area.what` in a list item (`- area: \`a.b\`, \`a.c\`` and its indented
 * continuation lines). Prose around the list is not read.
 */
export function readmeLogEvents(readme: string, section: string): string[] {
  const lines = readme.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${section}`);
  if (start < 0) return [];
  const names: string[] = [];
  let inEvents = false;
  let inItem = false;
  for (const line of lines.slice(start + 1)) {
    if (/^## /.test(line)) break;
    if (/^### /.test(line)) {
      if (inEvents) break;
      inEvents = line.trim() === '### Log events';
      continue;
    }
    if (!inEvents) continue;
    if (line.startsWith('- ')) inItem = true;
    else if (!line.startsWith('  ')) inItem = false;
    if (!inItem) continue;
    for (const m of line.matchAll(/`([a-z][a-z_]*\.[a-z][a-z_]*)`/g)) names.push(m[1]!);
  }
  return names;
}
