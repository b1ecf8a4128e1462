import packageJson from '../package.json' with { type: 'json' };

/** The release version, embedded at build time. */
export const PANEL_VERSION: string = packageJson.version;
