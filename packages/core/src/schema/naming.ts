import { ValidationError } from "../errors.js";

export type NamingStrategy = "snake_case" | "preserve";

const strategies: Record<NamingStrategy, (field: string) => string> = {
  snake_case: toSnakeCase,
  preserve: (field) => field,
};

export function toSnakeCase(field: string): string {
  return field
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase();
}

/** `static naming` arrives as a plain string (class statics are not contextually typed), so it is checked here. */
export function namingFunction(naming: unknown, modelName: string): (field: string) => string {
  if (naming === undefined) return strategies.preserve;
  if (typeof naming === "string" && Object.hasOwn(strategies, naming)) {
    return strategies[naming as NamingStrategy];
  }
  throw new ValidationError(
    `${modelName}.naming must be one of ${Object.keys(strategies)
      .map((s) => `"${s}"`)
      .join(", ")}, got ${JSON.stringify(naming)}`,
  );
}
