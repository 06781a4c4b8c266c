/** swaks, the Swiss Army Knife for SMTP: a scriptable client (pipelining, STARTTLS, AUTH, LMTP). */
import { executable } from "./peer.js";

export const SWAKS = "/usr/bin/swaks";

export function haveSwaks(): boolean {
  return executable(SWAKS);
}
