import { expect } from "vitest";
import { UnsupportedFeatureError } from "../../src/index.js";

/** Runs `run` and returns the UnsupportedFeatureError it throws; another error, or none, fails the test. */
export function refusal(run: () => unknown): UnsupportedFeatureError {
  try {
    run();
  } catch (error) {
    if (!UnsupportedFeatureError.isInstance(error)) throw error;
    expect(error).toBeInstanceOf(UnsupportedFeatureError);
    return error;
  }
  throw new Error("expected an UnsupportedFeatureError, nothing was thrown");
}
