/**
 * The value for npm_config_nodedir (the headers next to the Node binary, when they match its version
 * and node-gyp has none cached), or undefined to leave node-gyp alone.
 */
export function nodeHeadersDir(env?: Record<string, string | undefined>, execPath?: string, version?: string): string | undefined;
/** "20.20.2" from a node_version.h, or undefined when the file is missing or has no version. */
export function headersVersion(file: string): string | undefined;
