/**
 * The raw drains' grouping of a claimed batch for its settlement: one completion per attempts value,
 * because the settle statement fences on the attempts each row was claimed with.
 */
export function idsByAttempts(rows: readonly { id: string; attempts: number }[]): Map<number, string[]> {
  const byAttempts = new Map<number, string[]>();
  for (const row of rows) {
    const group = byAttempts.get(row.attempts);
    if (group) group.push(row.id);
    else byAttempts.set(row.attempts, [row.id]);
  }
  return byAttempts;
}
