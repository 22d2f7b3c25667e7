/**
 * A progress line: redrawn in place on a terminal, printed as plain lines (at most one a second)
 * when the output is a pipe or a CI log.
 */
export function createProgress(stream = process.stdout) {
  const tty = Boolean(stream.isTTY);
  let lastPlain = 0;
  return {
    update({ sent, failed, target, retried, enqueued, rate }) {
      const done = sent + failed;
      const share = target === 0 ? 1 : Math.min(1, done / target);
      const text = `sent ${sent}/${target}  retried ${retried}  failed ${failed}  enqueued ${enqueued}  ${rate} msg/s`;
      if (tty) {
        const width = 30;
        const filled = Math.round(share * width);
        stream.write(
          `\r\x1b[2K[${"█".repeat(filled)}${"░".repeat(width - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%  ${text}`,
        );
      } else if (Date.now() - lastPlain >= 1000 || done === target) {
        lastPlain = Date.now();
        stream.write(`${String(Math.floor(share * 100)).padStart(3)}%  ${text}\n`);
      }
    },
    finish() {
      if (tty) stream.write("\n");
    },
  };
}
