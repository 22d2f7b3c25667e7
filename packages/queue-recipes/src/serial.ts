/**
 * Runs tasks one at a time, in the order they were handed in. A batch's lease renewals and its
 * settlements go through one, so that they never race each other on the same rows (two UPDATEs of
 * one row from two connections of the same worker would only wait for each other, or deadlock).
 */
export class Serial {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => {});
    return result;
  }
}
