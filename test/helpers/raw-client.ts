/**
 * A deliberately naive lock-step SMTP client for exercising the test peers, independent of
 * mailvolley's own client: it waits for each complete reply before it writes the next command.
 */
import net from "node:net";

export interface Conversation {
  /** Every chunk received, as TCP delivered it (latin1). */
  chunks: string[];
  /** Each complete reply, all its lines joined with CRLF, without the final CRLF. */
  replies: string[];
}

/** True when `text` ends with the last line of a reply (`ddd` + space or end of line). */
function replyComplete(text: string): boolean {
  if (!text.endsWith("\n")) return false;
  const lines = text.split(/\r?\n/);
  lines.pop();
  const last = lines[lines.length - 1] ?? "";
  return /^\d{3}(?: |$)/.test(last);
}

/**
 * Connects, reads the banner, then for each entry of `writes` writes it (CRLF is appended to
 * strings that lack a line end) and reads one complete reply. Resolves when the writes are
 * done and the server has closed, or after `idleMs` without data.
 */
export function converse(
  port: number,
  writes: readonly string[],
  opts: { host?: string; idleMs?: number } = {},
): Promise<Conversation> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, opts.host ?? "127.0.0.1");
    const result: Conversation = { chunks: [], replies: [] };
    let pending = "";
    let next = 0;
    let idle: NodeJS.Timeout | undefined;
    const idleMs = opts.idleMs ?? 2000;
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => socket.destroy(), idleMs);
    };
    arm();
    socket.on("data", (chunk) => {
      arm();
      const text = chunk.toString("latin1");
      result.chunks.push(text);
      pending += text;
      if (!replyComplete(pending)) return;
      result.replies.push(pending.replace(/\r?\n$/, ""));
      pending = "";
      if (next < writes.length) {
        const w = writes[next++];
        socket.write(w.endsWith("\n") ? w : `${w}\r\n`);
      }
    });
    socket.on("error", (err) => {
      clearTimeout(idle);
      reject(err);
    });
    socket.on("close", () => {
      clearTimeout(idle);
      resolve(result);
    });
  });
}

/** The writes of `count` lock-step transactions of one recipient each, then QUIT. */
export function transactions(
  count: number,
  opts: { hello?: string; body?: string } = {},
): string[] {
  const writes = [opts.hello ?? "EHLO client.test"];
  for (let i = 0; i < count; i++) {
    writes.push(
      `MAIL FROM:<sender${i}@client.test>`,
      `RCPT TO:<rcpt${i}@server.test>`,
      "DATA",
      `${opts.body ?? `Subject: test ${i}\r\n\r\nbody ${i}\r\n`}.\r\n`,
    );
  }
  writes.push("QUIT");
  return writes;
}
