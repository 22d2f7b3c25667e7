/** What the runner reports as it goes: printed for people, one JSON line each with `--json`. */
export type MigrateEvent =
  | { readonly event: "lock-wait" }
  | {
      readonly event: "migration-start";
      readonly name: string;
      readonly direction: "up" | "down";
      readonly steps: number;
      readonly resumeAt: number;
    }
  | {
      readonly event: "step-done";
      readonly name: string;
      readonly step: number;
      readonly steps: number;
      readonly what: string;
      readonly ms: number;
    }
  | { readonly event: "retry"; readonly name: string; readonly what: string; readonly attempt: number; readonly reason: string }
  | { readonly event: "invalid-index"; readonly name: string; readonly index: string }
  | { readonly event: "log"; readonly name: string; readonly message: string }
  | { readonly event: "skipped"; readonly name: string; readonly reason: string }
  | { readonly event: "migration-done"; readonly name: string; readonly direction: "up" | "down"; readonly ms: number };

export type MigrateListener = (event: MigrateEvent) => void;
