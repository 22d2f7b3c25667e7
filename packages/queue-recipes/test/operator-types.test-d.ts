import type { InferModel } from "tempest-db-js";
import { select } from "tempest-db-js";
import { describe, expectTypeOf, it } from "vitest";
import type { OperatorResult } from "../src/index.js";
import { cancelQueued, retryFailed, withQueueFeatures } from "../src/index.js";
import { outboundModel, type tokenModel } from "./support/models.js";

const Guide = outboundModel("qr_types");
const Full = withQueueFeatures(Guide);

describe("the operator verbs' types", () => {
  it("withQueueFeatures adds the optional columns to the row type", () => {
    type Row = InferModel<typeof Full>;
    expectTypeOf<Row["deadReason"]>().toEqualTypeOf<string | null>();
    expectTypeOf<Row["reclaims"]>().toEqualTypeOf<number>();
    expectTypeOf<Row["claimToken"]>().toEqualTypeOf<number>();
    expectTypeOf<Row["lastErrorAt"]>().toEqualTypeOf<Date | null>();
    expectTypeOf<Row["status"]>().toEqualTypeOf<"queued" | "sending" | "sent" | "failed">();
    // A column the model declares keeps its own type.
    expectTypeOf<InferModel<ReturnType<typeof withQueueFeatures<ReturnType<typeof tokenModel>>>>["claimToken"]>().toEqualTypeOf<number>();
    select(Full, ["deadReason", "attemptHistory"]);
  });

  it("returns the model's id type, and takes only value filters", () => {
    expectTypeOf(retryFailed(null as never, Full)).resolves.toEqualTypeOf<OperatorResult<string>>();
    // @ts-expect-error a consumer is a string or strings, not an operator object
    void cancelQueued(null as never, Full, { consumer: { ne: "x" } });
    // @ts-expect-error since is a Date
    void retryFailed(null as never, Full, { since: "yesterday" });
  });
});
