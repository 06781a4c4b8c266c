/**
 * Gateway emulation modelled on Postfix anvil(8): concurrent connections (in total and per client
 * address), the connection rate and the message (MAIL) rate per client address. Rates count
 * events in a time unit that starts with the client's first event, as anvil does with
 * `anvil_rate_time_unit`; when the unit has passed the count starts again.
 */
import type { FilledSinkOptions, Rate } from "./filled-options.js";
import { tooManyConnections, tooMuchMail } from "./replies.js";

interface RateWindow {
  start: number;
  count: number;
}

/** Drop idle per-client entries once the maps grow past this many clients. */
const PRUNE_THRESHOLD = 10_000;

export class GatewayLimits {
  private active = 0;
  private readonly activeByClient = new Map<string, number>();
  private readonly connectionRates = new Map<string, RateWindow>();
  private readonly messageRates = new Map<string, RateWindow>();
  private readonly refusals = new Map<string, Buffer>();
  private readonly rateReplies = new Map<string, Buffer>();

  constructor(private readonly options: FilledSinkOptions) {}

  /**
   * A new connection from `client`: null when it may proceed (and is then counted until
   * `release`), else the 421 4.7.0 to send at the banner.
   */
  admit(client: string, now: number): Buffer | null {
    const o = this.options;
    const mine = this.activeByClient.get(client) ?? 0;
    const overCount =
      (o.maxConnections > 0 && this.active >= o.maxConnections) ||
      (o.maxConnectionsPerClient > 0 && mine >= o.maxConnectionsPerClient);
    // anvil counts every connection attempt toward the rate, refused or not.
    const overRate =
      o.maxConnectionRate !== undefined &&
      !this.countRate(this.connectionRates, client, o.maxConnectionRate, now);
    if (overCount || overRate) return this.refusal(client);
    this.active++;
    this.activeByClient.set(client, mine + 1);
    return null;
  }

  release(client: string): void {
    this.active--;
    const mine = (this.activeByClient.get(client) ?? 1) - 1;
    if (mine <= 0) this.activeByClient.delete(client);
    else this.activeByClient.set(client, mine);
  }

  /** A MAIL from `client`: null when within the message rate, else the 450 4.7.1 to send. */
  mail(client: string, now: number): Buffer | null {
    const rate = this.options.maxMessageRate;
    if (rate === undefined || this.countRate(this.messageRates, client, rate, now)) return null;
    let reply = this.rateReplies.get(client);
    if (reply === undefined) {
      reply = tooMuchMail(this.options, client);
      this.rateReplies.set(client, reply);
    }
    return reply;
  }

  get messageRateLimited(): boolean {
    return this.options.maxMessageRate !== undefined;
  }

  private refusal(client: string): Buffer {
    let reply = this.refusals.get(client);
    if (reply === undefined) {
      reply = tooManyConnections(this.options, client);
      this.refusals.set(client, reply);
    }
    return reply;
  }

  /** Counts one event; false when it is over the rate. */
  private countRate(map: Map<string, RateWindow>, client: string, rate: Rate, now: number) {
    let window = map.get(client);
    if (window === undefined || now - window.start >= rate.windowMs) {
      if (window === undefined && map.size >= PRUNE_THRESHOLD) prune(map, rate, now);
      window = { start: now, count: 0 };
      map.set(client, window);
    }
    window.count++;
    return window.count <= rate.count;
  }
}

function prune(map: Map<string, RateWindow>, rate: Rate, now: number): void {
  for (const [client, window] of map) {
    if (now - window.start >= rate.windowMs) map.delete(client);
  }
}
