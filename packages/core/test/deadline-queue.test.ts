import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DeadlineQueue } from "../src/engine/deadline-queue.js";

describe("DeadlineQueue (acquireTimeoutMs on one timer)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("expires each entry when its own deadline passes, in the order they were added", () => {
    const queue = new DeadlineQueue(100);
    const expired: string[] = [];
    queue.add(() => expired.push("a"));
    vi.advanceTimersByTime(40);
    queue.add(() => expired.push("b"));
    vi.advanceTimersByTime(59);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(["a"]);
    vi.advanceTimersByTime(39);
    expect(expired).toEqual(["a"]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(["a", "b"]);
  });

  it("never expires a removed entry, and still expires the ones added after it on time", () => {
    const queue = new DeadlineQueue(100);
    const expired: string[] = [];
    const first = queue.add(() => expired.push("first"));
    vi.advanceTimersByTime(30);
    queue.add(() => expired.push("second"));
    queue.remove(first);
    vi.advanceTimersByTime(99);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(["second"]);
  });

  it("keeps one timer for many waits that end before their deadline, and stops once none waits", () => {
    const queue = new DeadlineQueue(100);
    for (let i = 0; i < 1000; i++) queue.remove(queue.add(() => expect.unreachable()));
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(100);
    expect(vi.getTimerCount()).toBe(0);
    const expired: number[] = [];
    queue.add(() => expired.push(1));
    vi.advanceTimersByTime(100);
    expect(expired).toEqual([1]);
  });
});
