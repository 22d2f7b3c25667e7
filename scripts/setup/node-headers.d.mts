/** The value for npm_config_nodedir (this Node's own headers), or undefined to leave node-gyp alone. */
export function nodeHeadersDir(env?: Record<string, string | undefined>): string | undefined;
/** "20.20.2" from a node_version.h, or undefined when the file is missing or has no version. */
export function headersVersion(file: string): string | undefined;
