/**
 * The one writer of what a command outputs: a summary for the terminal and a list of exports
 * (JSON, HTML), each written by one function from the command's value (hyperfine's
 * ExportManager). `-` as a path means stdout; the summary then goes to stderr so the export can
 * be piped. Renderers stay pure: they get the colour decision and return text.
 *
 * Nothing is written half-way: a path is checked before any traffic without creating it, and
 * written whole at the end (a temporary file beside it, renamed over it), so a bad option, a
 * signal or a killed process never leaves an empty or truncated file. A write that fails is
 * one line naming the option, never a stack trace.
 */
import { randomBytes } from "node:crypto";
import {
  accessSync,
  closeSync,
  constants,
  fsyncSync,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { UsageError } from "../usage/usage-error.js";
import { colorWanted } from "./color.js";

/** Text for the value, or null when there is nothing to write. */
type Render<T> = (value: T) => string | null;

export interface Export<T> {
  /** The option that asked for it, for error messages: "--json". */
  readonly option: string;
  /** A file path, or "-" for stdout. */
  readonly path: string;
  readonly render: Render<T>;
}

export interface Output<T> {
  /** The terminal summary; not printed when quiet or when it returns null. */
  readonly summary: (value: T, options: { color: boolean; width?: number }) => string | null;
  readonly quiet: boolean;
  readonly exports: readonly Export<T>[];
}

/** The exports whose path was given (null or undefined: not asked for). */
export function exportsOf<T>(
  wanted: readonly (readonly [option: string, path: unknown, render: Render<T>])[],
): Export<T>[] {
  return wanted
    .filter(([, path]) => path !== undefined && path !== null)
    .map(([option, path, render]) => ({ option, path: String(path), render }));
}

/** Fails before a run, not after it, when an export's file cannot be written. */
export function checkWritable(exports: readonly { option: string; path: string }[]): void {
  for (const { option, path } of exports) checkOutputPath(option, path);
  checkDistinctPaths(exports);
}

/**
 * Two outputs on one file would leave only the last one written (the JSON lost under the
 * HTML): refused before any traffic. Paths are compared as the files they name, not as
 * strings: an existing file by its inode (a symlink or a hard link to it is the same file), a
 * new one by the real path it will be written at (through symlinked directories and a dangling
 * link's target); devices (`/dev/null`) take any number of writers.
 */
export function checkDistinctPaths(outputs: readonly { option: string; path: string }[]): void {
  const seen = new Map<string, string>();
  for (const { option, path } of outputs) {
    const key = fileKey(path);
    if (key === null) continue;
    const first = seen.get(key);
    if (first !== undefined) {
      const where = path === "-" ? "stdout" : JSON.stringify(path);
      throw new UsageError(
        option,
        `${first} already writes ${where}${key === "-" ? "" : " (the same file)"}; give each output its own file`,
      );
    }
    seen.set(key, option);
  }
}

/** What an output writes to, as a key equal for one file however named; null: a device. */
function fileKey(path: string): string | null {
  if (path === "-") return "-";
  const existing = statOrNull(path);
  if (existing === null) return `new ${outputTarget(path)}`;
  return existing.isFile() ? `inode ${existing.dev}:${existing.ino}` : null;
}

/** Links followed before a path is given up as a loop, as the kernel's limit (ELOOP). */
const MAX_LINKS = 40;

/**
 * The real path an output that does not exist yet will be written at: dangling symlinks
 * followed to their target, the directory that target lies in resolved. Throws ENOENT when that
 * directory does not exist (a link into a missing directory), ELOOP on a loop of links.
 */
function outputTarget(path: string): string {
  let target = resolve(path);
  for (let links = 0; links < MAX_LINKS; links++) {
    let link: string;
    try {
      link = readlinkSync(target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // EINVAL: not a symlink, the file to create; ENOENT: nothing there yet.
      if (code !== "EINVAL" && code !== "ENOENT") throw error;
      return join(realpathSync(dirname(target)), basename(target));
    }
    target = resolve(dirname(target), link);
  }
  throw Object.assign(new Error(), { code: "ELOOP" });
}

/**
 * Throws a UsageError naming `option` unless `path` can be written whole: a device or pipe
 * that may be written, or a file (new or not) in a directory where a file may be created.
 * Creates nothing. A new file is checked where it will be written: a symlink's target's
 * directory must exist.
 */
export function checkOutputPath(option: string, path: string): void {
  if (path === "-") return;
  try {
    const existing = statOrNull(path);
    if (existing?.isDirectory()) throw Object.assign(new Error(), { code: "EISDIR" });
    if (existing !== null) accessSync(path, constants.W_OK);
    // A device, or a writable file: whole when its directory lets us, else in place.
    if (existing !== null) return;
    const directory = dirname(outputTarget(path));
    if (!statSync(directory).isDirectory()) throw Object.assign(new Error(), { code: "ENOTDIR" });
    accessSync(directory, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new UsageError(
      option,
      `cannot write ${JSON.stringify(path)} (${reason(error)}); give a writable file path`,
    );
  }
}

/**
 * Writes `data` to `path` whole or not at all: into a new temporary file in the same directory,
 * flushed, then renamed over `path` (a symlink's target is replaced, not the link). Devices and
 * pipes (`/dev/stdout`, a FIFO) are written directly.
 */
export function writeWhole(path: string, data: string): void {
  const existing = statOrNull(path);
  if (existing !== null && !existing.isFile()) {
    const fd = openForWriting(path);
    try {
      writeFully(fd, data);
    } finally {
      closeSync(fd);
    }
    return;
  }
  const final = existing === null ? outputTarget(path) : realpathSync(path);
  const temp = join(
    dirname(final),
    `.${basename(final)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`,
  );
  let fd: number;
  try {
    fd = openSync(temp, "wx", existing === null ? 0o666 : existing.mode & 0o777);
  } catch (error) {
    if (existing === null) throw error;
    // A file we may write in a directory where we may not create one: in place, not whole.
    writeAll(openSync(final, "w"), data);
    return;
  }
  try {
    writeAll(fd, data);
    renameSync(temp, final);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** Writes `data` to `fd`, flushes it to the disk and closes it (also on failure). */
function writeAll(fd: number, data: string): void {
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } catch (error) {
    // A device (/dev/full) may fail at the flush only; EINVAL from fsync on a pipe is no error.
    if ((error as NodeJS.ErrnoException).code !== "EINVAL") throw error;
  } finally {
    closeSync(fd);
  }
}

/** How long a write to a FIFO may make no progress (its reader stopped reading). */
const STALLED_PIPE_MS = 30_000;

/**
 * Opens an output for writing (created or truncated). A FIFO is opened without waiting: open(2)
 * would block the whole process until a reader comes, signals included; with no reader it
 * fails now (ENXIO, "no process reads it").
 */
export function openForWriting(path: string): number {
  if (!statOrNull(path)?.isFIFO()) return openSync(path, "w");
  try {
    return openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENXIO") throw error;
    throw Object.assign(new Error("no process reads this FIFO"), { code: "no reader" });
  }
}

/** Writes all of `text`; a non-blocking pipe that is full is waited on, a stalled one given up. */
export function writeFully(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let offset = 0;
  let stalledSince = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
      stalledSince = 0;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      const now = Date.now();
      if (stalledSince === 0) stalledSince = now;
      else if (now - stalledSince > STALLED_PIPE_MS) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** An fs error as a short reason: its code ("ENOSPC"), or its message. */
function reason(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e.code ?? e.message ?? String(error);
}

/**
 * Writes one export; on failure prints one line naming the option and returns false.
 * `what` names the lost content for that line ("the result").
 */
export function writeExport(option: string, path: string, text: string, what: string): boolean {
  try {
    if (path === "-") process.stdout.write(text);
    else writeWhole(path, text);
    return true;
  } catch (error) {
    process.stderr.write(
      `mailvolley: ${option}: cannot write "${path}" (${reason(error)}); ${what} was not saved there\n`,
    );
    return false;
  }
}

/**
 * Prints the summary (unless quiet), then writes every export of `value`; false when an export
 * could not be written (one line each on stderr).
 */
export function writeOutput<T>(output: Output<T>, value: T): boolean {
  const toStdout = output.exports.some((e) => e.path === "-");
  if (!output.quiet) {
    const stream = toStdout ? process.stderr : process.stdout;
    const width = stream.isTTY ? stream.columns : undefined;
    const summary = output.summary(value, { color: colorWanted(stream), width });
    if (summary !== null) stream.write(summary);
  }
  let written = true;
  for (const { option, path, render } of output.exports) {
    const text = render(value);
    if (text === null) continue;
    written = writeExport(option, path, text, "the output") && written;
  }
  return written;
}
