/**
 * --dump DIR: each accepted message as an .eml file, to check that subject and content really
 * arrived. Off the hot path by design: it is a smoke-test aid, not something to load-test with.
 */
import { mkdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { unstuff } from "../smtp/message.js";

export class MessageDumper {
  private sequence = 0;
  private readonly pending = new Set<Promise<void>>();
  /** Failed writes; the first error is kept for the summary. */
  errors = 0;
  firstError = "";

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** `content` as received: DATA content still ends with ".\r\n" and is dot-stuffed. */
  write(content: Buffer[], stuffed: boolean): void {
    const whole = Buffer.concat(content);
    const message = stuffed ? unstuff(whole.subarray(0, whole.length - 3)) : whole;
    this.sequence++;
    const name = `${Date.now()}-${String(this.sequence).padStart(8, "0")}.eml`;
    const done = writeFile(join(this.dir, name), message).then(
      () => {},
      (error: Error) => {
        if (this.errors++ === 0) this.firstError = error.message;
      },
    );
    this.pending.add(done);
    done.finally(() => this.pending.delete(done));
  }

  /** Resolves when every started write has finished. */
  async settle(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
