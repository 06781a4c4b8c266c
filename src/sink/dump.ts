/**
 * --dump DIR: each accepted message as an .eml file, to check that subject and content really
 * arrived. Off the hot path by design: it is a smoke-test aid, not something to load-test with.
 *
 * A sink often runs as root, so the directory and the files are opened with care: a file is
 * created new (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600), never through an existing file or symlink,
 * and a directory that another user can write to is refused unless it is sticky and ours (as
 * /tmp is for root): there, another user could otherwise plant a symlink under a name we are
 * about to write.
 */
import { randomBytes } from "node:crypto";
import { constants, mkdirSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { unstuff } from "../smtp/message.js";
import { UsageError } from "../usage/usage-error.js";

/** S_ISVTX: node's fs.constants lacks it. */
const STICKY = 0o1000;
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/**
 * Creates DIR (mode 0700) if it does not exist, and refuses one that users other than us can
 * write to, unless it is sticky and owned by us. Throws a UsageError naming --dump.
 */
export function checkDumpDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new UsageError("--dump", (error as Error).message, dir);
  }
  const stat = statSync(dir);
  if (!stat.isDirectory()) throw new UsageError("--dump", "not a directory", dir);
  const writableByOthers = (stat.mode & 0o022) !== 0;
  const uid = process.getuid?.() ?? stat.uid;
  const stickyAndOurs = (stat.mode & STICKY) !== 0 && stat.uid === uid;
  if (writableByOthers && !stickyAndOurs) {
    throw new UsageError(
      "--dump",
      `writable by other users (mode ${(stat.mode & 0o7777).toString(8)}); ` +
        `give a directory only you can write to, e.g. chmod go-w ${dir}`,
      dir,
    );
  }
}

export class MessageDumper {
  private sequence = 0;
  /** Random per sink, so that file names cannot be guessed ahead of the write. */
  private readonly token = randomBytes(6).toString("hex");
  private readonly pending = new Set<Promise<void>>();
  /** Failed writes; the first error is kept for the summary. */
  errors = 0;
  firstError = "";

  constructor(private readonly dir: string) {
    checkDumpDir(dir);
  }

  /** `content` as received: DATA content still ends with ".\r\n" and is dot-stuffed. */
  write(content: Buffer[], stuffed: boolean): void {
    const whole = Buffer.concat(content);
    const message = stuffed ? unstuff(whole.subarray(0, whole.length - 3)) : whole;
    this.sequence++;
    const name = `${Date.now()}-${this.token}-${String(this.sequence).padStart(8, "0")}.eml`;
    const done = writeNew(join(this.dir, name), message).then(
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

/** Writes a file that must not exist yet; an existing file or symlink is an error, not a target. */
export async function writeNew(path: string, data: Buffer): Promise<void> {
  const file = await open(path, CREATE_NEW, 0o600);
  try {
    await file.writeFile(data);
  } finally {
    await file.close();
  }
}
