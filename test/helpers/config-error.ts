/** Bad input as the CLI would print it. */
import assert from "node:assert/strict";
import { UsageError } from "../../src/usage/usage-error.js";

/** The one line the CLI would print for the UsageError `fn` throws (fails if none, or two lines). */
export function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof UsageError, `a UsageError, not ${error}`);
    assert.ok(!error.message.includes("\n"), "one line");
    return error.message;
  }
  assert.fail("no UsageError");
}
