/** Bad input as the CLI would print it. */
import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/parse.js";

/** The one line the CLI would print for the ConfigError `fn` throws (fails if none, or two lines). */
export function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `a ConfigError, not ${error}`);
    assert.ok(!error.message.includes("\n"), "one line");
    return error.message;
  }
  assert.fail("no ConfigError");
}
