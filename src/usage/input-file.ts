/**
 * The one reader of a file the user names as input: a plan, a saved result, an arrivals file,
 * credentials, a certificate, a message source. Opening a FIFO for reading waits in open(2)
 * until a writer comes, for good if none does, and a read from a device may never end: on the
 * main thread (readFileSync) or a pool thread (readFile) no signal reaches that wait, and the
 * process could neither go on nor stop. So every input is opened without waiting (O_NONBLOCK:
 * a FIFO's open returns at once) and looked at through its descriptor, which no rename can
 * swap: a regular file is read whole; a pipe is read off the event loop where the caller
 * allows it (a file read once, on the main thread, while a signal can still end the reading),
 * refused elsewhere; a directory, a device or a socket is refused.
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFile,
  readFileSync,
  type Stats,
} from "node:fs";
import { Socket } from "node:net";
import { UsageError } from "./usage-error.js";

export interface InputFile {
  /** The option that names the file ("--plan"); absent: the path stands in its place. */
  readonly option?: string;
  /** What the file is, for the fix: "plan", "message file". */
  readonly what: string;
  /**
   * Whether a pipe (a FIFO, `<(command)`) is read: only where the file is read once, on the
   * main thread, with `signal` ending the wait for a writer. Else a pipe is refused.
   */
  readonly pipes?: boolean;
  /** Ends the reading (a SIGTERM while it waits): the promise rejects with an AbortError. */
  readonly signal?: AbortSignal;
}

// O_NOCTTY: a terminal device named as input must not become this process's controlling tty.
const NO_WAIT = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Files read ahead by prereadInputFile, by path as given. */
const preread = new Map<string, Buffer>();

/**
 * The whole file; a pipe (when allowed) until its writer closes it. A file read ahead
 * (prereadInputFile) is not read again.
 */
export async function readInputFile(path: string, input: InputFile): Promise<Buffer> {
  input.signal?.throwIfAborted();
  const early = preread.get(path);
  if (early !== undefined) return early;
  // open(2) and fstat(2) here return at once whatever the path names (O_NONBLOCK).
  const fd = openInput(path, input);
  let stats: Stats;
  try {
    stats = fstatSync(fd);
    if (!(stats.isFIFO() && input.pipes === true)) refuseUnlessRegular(stats, path, input);
  } catch (error) {
    closeSync(fd);
    throw readError(error, path, input);
  }
  if (stats.isFIFO()) return readPipe(fd, path, input);
  try {
    return await new Promise<Buffer>((resolve, reject) =>
      readFile(fd, { signal: input.signal }, (error, data) =>
        error ? reject(error) : resolve(data),
      ),
    );
  } catch (error) {
    throw readError(error, path, input);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads `path` now, as readInputFile does with pipes allowed, for a reader that will want it
 * where nothing can wait (a plan, credentials: read synchronously while a config is checked; a
 * certificate, read before the sink's signal handlers exist): readInputFileSync and
 * readInputFile then return these bytes. `--auth-file <(pass show smtp)` works so.
 */
export async function prereadInputFile(path: string, input: InputFile): Promise<void> {
  if (preread.has(path)) return;
  preread.set(path, await readInputFile(path, { ...input, pipes: true }));
}

/**
 * The whole file, read on the calling thread: for readers that cannot wait (a plan, credentials
 * read while a config is checked). A file read ahead (prereadInputFile) is not read again; else
 * a pipe is refused: reading it could block the event loop.
 */
export function readInputFileSync(path: string, input: InputFile): Buffer {
  const early = preread.get(path);
  if (early !== undefined) return early;
  const fd = openInput(path, input);
  try {
    refuseUnlessRegular(fstatSync(fd), path, input);
    return readFileSync(fd);
  } catch (error) {
    throw readError(error, path, input);
  } finally {
    closeSync(fd);
  }
}

/**
 * A pipe read on the event loop, never in a pool thread: libuv polls it, so a FIFO with no
 * writer yet waits without holding a thread, and `signal` ends the wait.
 */
function readPipe(fd: number, path: string, input: InputFile): Promise<Buffer> {
  // The socket owns the descriptor from here and closes it when it ends or is destroyed.
  const pipe = new Socket({ fd, readable: true, writable: false });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const abort = () => {
      pipe.destroy();
      reject(input.signal?.reason);
    };
    input.signal?.addEventListener("abort", abort, { once: true });
    const done = () => input.signal?.removeEventListener("abort", abort);
    pipe.on("data", (chunk: Buffer) => chunks.push(chunk));
    pipe.once("end", () => {
      done();
      pipe.destroy();
      resolve(Buffer.concat(chunks));
    });
    pipe.once("error", (error) => {
      done();
      reject(inputError(path, input, `cannot be read (${error.message})`));
    });
  });
}

function openInput(path: string, input: InputFile): number {
  try {
    return openSync(path, NO_WAIT);
  } catch (error) {
    throw inputError(path, input, openFailure(error as NodeJS.ErrnoException, input.what));
  }
}

function refuseUnlessRegular(stats: Stats, path: string, input: InputFile): void {
  if (stats.isFile()) return;
  const what = input.what;
  const problem = stats.isDirectory()
    ? `is a directory; give the path of the ${what}`
    : stats.isFIFO()
      ? `is a FIFO (named pipe); give the ${what} as a regular file`
      : stats.isSocket()
        ? `is a socket; give the ${what} as a regular file`
        : `is a device, not a file; give the ${what} as a regular file`;
  throw inputError(path, input, problem);
}

/** A failure while reading: an abort passes as it is; a refusal too; the rest named. */
function readError(error: unknown, path: string, input: InputFile): unknown {
  if (error instanceof UsageError) return error;
  if ((error as Error).name === "AbortError") return error;
  return inputError(path, input, openFailure(error as NodeJS.ErrnoException, input.what));
}

function openFailure(error: NodeJS.ErrnoException, what: string): string {
  switch (error.code) {
    case "ENOENT":
      return `no such file; check the path of the ${what}`;
    case "EISDIR":
      return `is a directory; give the path of the ${what}`;
    case "EACCES":
    case "EPERM":
      return "cannot be read (permission denied); make it readable";
    default:
      return `cannot be read (${error.code ?? error.message})`;
  }
}

/**
 * The one line: `--plan "f": is a FIFO …` with an option, `f: is a FIFO …` where the path is
 * the argument itself. The path is quoted as JSON, so a control byte in it prints escaped.
 */
function inputError(path: string, input: InputFile, problem: string): UsageError {
  return input.option === undefined
    ? new UsageError(path, problem)
    : new UsageError(input.option, problem, JSON.stringify(path));
}
