/** A TCP listener on loopback that drops SYNs as a firewall would (connect timeouts on loopback). */
import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";

/**
 * A loopback listener that never accepts: a child process listens with a backlog of 1 and then
 * blocks its event loop, so the kernel's accept queue fills with the two connections made here
 * and every later SYN is dropped (Linux drops a SYN when the accept queue is full). A connect
 * to it stays pending: the connect phase, without leaving loopback.
 */
export async function startStalledListener(): Promise<{ port: number; stop(): Promise<void> }> {
  const program = `
    const net = require("node:net");
    const server = net.createServer();
    server.listen({ port: 0, host: "127.0.0.1", backlog: 1 }, () => {
      require("node:fs").writeSync(1, server.address().port + "\\n");
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
    });`;
  const child: ChildProcess = spawn(process.execPath, ["-e", program], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once("data", (chunk: Buffer) => resolve(Number(String(chunk).trim())));
    child.once("exit", (code) => reject(new Error(`listener exited with ${code}`)));
  });
  const fillers = await Promise.all(
    [0, 1].map(
      () =>
        new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect(port, "127.0.0.1", () => resolve(socket));
          socket.once("error", reject);
        }),
    ),
  );
  return {
    port,
    async stop() {
      for (const socket of fillers) socket.destroy();
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
  };
}
