/** Postfix smtp-source, the SMTP test client from the postfix package. */
import { executable } from "./peer.js";

export const SMTP_SOURCE = "/usr/sbin/smtp-source";

export function haveSmtpSource(): boolean {
  return executable(SMTP_SOURCE);
}
