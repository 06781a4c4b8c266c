/**
 * Message and address sources: files read whole, once, before the run, and turned into content
 * that is safe to send after DATA (CRLF, dot-stuffed, ends with CRLF, no NUL). Everything is
 * held in memory: a source costs about its files' size (plus a few percent for stuffing and
 * CRLF), and per message the client gets a shared Buffer (.eml, directory, mbox) or one Buffer
 * joined from precompiled pieces (template). Files over the Buffer limit (2 GiB) cannot load.
 */
export { loadAddressList } from "./address-list.js";
export { loadEml, loadEmlDir } from "./eml.js";
export { loadMbox, type MboxFormat, MboxSource } from "./mbox.js";
export {
  type MessageContent,
  type MessageSource,
  SourceError,
  type SourceKind,
  type SourceOrder,
  type TemplateVars,
} from "./source.js";
export { loadTemplate } from "./template.js";
