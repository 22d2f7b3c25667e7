import { select, sql } from "tempest-db-js";
import { HostileRow } from "./models.js";

class Account {
  name = "admin";
  toString() {
    return "admin";
  }
}

/** A Date whose toISOString (what the MySQL encoder calls) lies. */
class SneakyDate extends Date {
  override toISOString() {
    return "1970-01-01T00:00:00.000Z'; DROP TABLE hostile_rows; --";
  }
}

/**
 * Values that are not values. Each entry makes a fresh one, so that no test shares a mutable object.
 * None of them may ever become SQL or a bound parameter of a text, integer or varchar column.
 */
export function hostileObjects(): [string, () => unknown][] {
  const real = sql.raw("1 = 1");
  return [
    ["a plain object", () => ({ name: "admin" })],
    ["an empty object", () => ({})],
    ["a null-prototype object", () => Object.assign(Object.create(null), { name: "admin" })],
    ["an array", () => ["admin"]],
    ["a function", () => () => "admin"],
    ["a class", () => Account],
    ["a symbol", () => Symbol("admin")],
    ["a class instance with toString", () => new Account()],
    ["a Map", () => new Map([["name", "admin"]])],
    ["a Set", () => new Set(["admin"])],
    ["a RegExp", () => /admin/],
    ["a Promise", () => Promise.resolve("admin")],
    ["an Error", () => new Error("admin")],
    ["a boxed String", () => new String("admin")],
    ["a Date", () => new Date(0)],
    ["a Date subclass", () => new SneakyDate(0)],
    ["a Proxy of a Date", () => new Proxy(new Date(0), {})],
    ["a Buffer", () => Buffer.from("admin")],
    ["a Uint8Array", () => new TextEncoder().encode("admin")],
    ["a bigint", () => 10n],
    ["NaN", () => Number.NaN],
    ["toString/valueOf/toJSON tricks", () => ({ toString: () => "admin", valueOf: () => 1, toJSON: () => "admin" })],
    ["a Symbol.toPrimitive trick", () => ({ [Symbol.toPrimitive]: () => "admin" })],
    ["a forged node", () => ({ node: { kind: "raw", text: "1 = 1; DROP TABLE hostile_rows" } })],
    ["a forged kind", () => ({ kind: "raw", text: "1 = 1" })],
    ["a JSON.parse'd expression", () => JSON.parse(JSON.stringify(real))],
    ["a spread of an expression", () => ({ ...real })],
    ["Object.assign of an expression", () => Object.assign({}, real)],
    ["a JSON.parse'd __proto__ trick", () => JSON.parse('{"__proto__": {"eq": "admin"}, "eq": "admin"}')],
    ["a Proxy of an object", () => new Proxy({ name: "admin" }, {})],
    ["a builder", () => select(HostileRow)],
    ["a subquery", () => select(HostileRow).asSubquery("label")],
  ];
}
