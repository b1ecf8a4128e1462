/**
 * Host paths in a Compose model: bind-mount sources, files Compose reads (env files, secret and
 * config files) and build contexts. Without host access a path must stay inside the Compose
 * project folder on the server: relative and never climbing out of it (stored and compiled
 * forms), or absolute under PolicyOptions.projectDir (resolved form). `~`, absolute paths and
 * Windows drives and pipes are the host.
 */
import { type HostPathUse, literal, needsHostAccess, type PolicyContext } from './context.ts';

/** Lexically normalizes a POSIX path; relative results keep their leading `..` segments. */
export function normalizePath(raw: string): string {
  const absolute = raw.startsWith('/');
  const parts: string[] = [];
  for (const segment of raw.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && parts.length > 0 && parts.at(-1) !== '..') parts.pop();
    else if (segment !== '..' || !absolute) parts.push(segment);
  }
  const joined = parts.join('/');
  return absolute ? `/${joined}` : joined || '.';
}

/** Whether Compose takes the string as a host path rather than a volume name (compose-go isFilePath). */
export function isFilePath(source: string): boolean {
  return /^[./~]/.test(source) || source.startsWith('\\\\') || /^[A-Za-z]:/.test(source);
}

/** Whether `path` is `dir` or lies under it (both normalized and absolute). */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);
}

function insideProject(ctx: PolicyContext, value: string): boolean {
  if (value.startsWith('~') || value.startsWith('\\') || /^[A-Za-z]:/.test(value)) return false;
  const normalized = normalizePath(value);
  if (!value.startsWith('/')) return normalized !== '..' && !normalized.startsWith('../');
  const projectDir = ctx.form === 'resolved' ? ctx.options.projectDir : undefined;
  return projectDir !== undefined && isWithin(normalized, normalizePath(projectDir));
}

/**
 * Checks one host path. Values that are not strings are left to Compose's own validation.
 * Accepted paths are reported to PolicyOptions.onHostPath (without host access only: with it
 * the daemon does not look at them).
 */
export function checkHostPath(ctx: PolicyContext, value: unknown, path: string, use: Pick<HostPathUse, 'kind' | 'writable'>): void {
  if (typeof value !== 'string') return;
  literal(ctx, value, path);
  if (ctx.hostAccess) return;
  if (!insideProject(ctx, value)) throw needsHostAccess(ctx, path, `${JSON.stringify(value)} is outside the project folder`);
  ctx.options.onHostPath?.({ path, value, ...use });
}

/** A path below a directory that is itself checked (a Dockerfile in its build context). */
export function joinPaths(dir: string, path: string): string {
  return path.startsWith('/') ? path : `${dir.replace(/\/+$/, '')}/${path}`;
}
