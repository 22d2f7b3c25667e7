import { parseArgs } from "node:util";

/** The commands of `tempest-queue`. */
export const COMMANDS = ["stats", "list", "show", "retry", "cancel", "purge", "watch", "serve"] as const;
export type CommandName = (typeof COMMANDS)[number];

export interface ParsedCommand {
  readonly command: CommandName | "help";
  readonly args: readonly string[];
  readonly url: string | undefined;
  readonly table: string;
  readonly model: string | undefined;
  readonly json: boolean;
  readonly status: string | undefined;
  readonly consumer: string | undefined;
  readonly limit: number | undefined;
  readonly olderThan: number | undefined;
  readonly include: readonly string[];
  readonly reason: string | undefined;
  readonly interval: number;
  readonly once: boolean;
  readonly all: boolean;
  readonly port: number;
  readonly host: string;
  readonly allowWrites: boolean;
}

export class UsageError extends Error {
  override readonly name = "UsageError";
}

const OPTIONS = {
  url: { type: "string" },
  table: { type: "string", default: "outbound_messages" },
  model: { type: "string" },
  json: { type: "boolean", default: false },
  status: { type: "string" },
  consumer: { type: "string" },
  limit: { type: "string" },
  "older-than": { type: "string" },
  include: { type: "string", multiple: true },
  reason: { type: "string" },
  interval: { type: "string", default: "2" },
  once: { type: "boolean", default: false },
  all: { type: "boolean", default: false },
  port: { type: "string", default: "4600" },
  host: { type: "string", default: "127.0.0.1" },
  "allow-writes": { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

function positiveNumber(name: string, text: string | undefined, integer: boolean): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new UsageError(`--${name} must be a positive ${integer ? "integer" : "number"}`);
  }
  return value;
}

/** Reads the command line; the database URL falls back to DATABASE_URL. */
export function parseCommand(argv: readonly string[], env: NodeJS.ProcessEnv): ParsedCommand {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [first, ...args] = positionals;
  if (values.help || first === undefined || first === "help") return { ...defaults(values, env), command: "help", args: [] };
  if (!(COMMANDS as readonly string[]).includes(first)) throw new UsageError(`unknown command "${first.slice(0, 40)}"`);
  return { ...defaults(values, env), command: first as CommandName, args };
}

function defaults(values: Record<string, unknown>, env: NodeJS.ProcessEnv): Omit<ParsedCommand, "command" | "args"> {
  return {
    url: (values.url as string | undefined) ?? env.DATABASE_URL,
    table: values.table as string,
    model: values.model as string | undefined,
    json: values.json as boolean,
    status: values.status as string | undefined,
    consumer: values.consumer as string | undefined,
    limit: positiveNumber("limit", values.limit as string | undefined, true),
    olderThan: positiveNumber("older-than", values["older-than"] as string | undefined, false),
    include: (values.include as string[] | undefined) ?? [],
    reason: values.reason as string | undefined,
    interval: positiveNumber("interval", values.interval as string, false) ?? 2,
    once: values.once as boolean,
    all: values.all as boolean,
    port: positiveNumber("port", values.port as string, true) ?? 4600,
    host: values.host as string,
    allowWrites: values["allow-writes"] as boolean,
  };
}

export const USAGE = `tempest-queue — look at and steer a tempest-db-js queue

Usage: tempest-queue <command> [options]

Commands:
  stats                         depth by state, oldest due message, per-consumer depth, claims in
                                flight, throughput per minute, failing consumers
  list                          messages of one status, newest first (--status, --consumer, --limit)
  show <id>                     one message
  retry [<id>...]               put failed messages back in the queue: the ids given, or with
                                --consumer, or --all
  cancel <id>...                cancel queued messages (never one being delivered)
  purge --older-than SECONDS    delete settled messages older than that (--include sent,failed)
  watch                         a live view, refreshed every --interval seconds (Ctrl-C stops)
  serve                         the web dashboard (--port, --host, --allow-writes); needs
                                TEMPEST_QUEUE_TOKEN, the token every request must carry

Options:
  --url URL           the database (default: $DATABASE_URL)
  --table NAME        the queue's table, read as the guide's model (default: outbound_messages)
  --model FILE#NAME   the queue's model class, exported by a TypeScript or JavaScript file
  --json              machine-readable output
  -h, --help          this text
`;
