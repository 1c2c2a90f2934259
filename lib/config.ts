/**
 * The console's settings read from the environment that more than one door needs (docs/architecture.md 6.3):
 * configuration, not a door's module, so pages, actions, the Chef door and the API door read them here.
 * Imports nothing of the project.
 */

/** The organization this install serves (CHEF_ORG, default `console`). */
export function chefOrg(): string {
  return process.env.CHEF_ORG || 'console';
}

/** PUBLIC_URL without trailing slashes, or null when unset: the base of absolute URIs in answers. */
export function publicUrl(): string | null {
  return process.env.PUBLIC_URL?.replace(/\/+$/, '') || null;
}

/** Chef Server's largest JSON request body (CHEF_MAX_REQUEST_SIZE, default 2000000 as opscode_erchef['max_request_size']). */
export function chefMaxRequestSize(): number {
  const n = Number(process.env.CHEF_MAX_REQUEST_SIZE);
  return Number.isInteger(n) && n > 0 ? n : 2_000_000;
}

/** The largest data collector message accepted (bytes; DATA_COLLECTOR_MAX_BYTES, default 4 MiB): a real run with full ohai data is well below. */
export function dataCollectorMaxBytes(): number {
  const n = Number(process.env.DATA_COLLECTOR_MAX_BYTES);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : 4 * 1024 * 1024;
}

/** The token form's secret: the configured DATA_COLLECTOR_TOKEN (unset: the token form is off). */
export function dataCollectorToken(): string | null {
  const t = process.env.DATA_COLLECTOR_TOKEN?.trim();
  return t ? t : null;
}
