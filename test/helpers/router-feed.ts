// The router under test with a listener per followed job, as the hub applies what it returns: the
// router tests assert what reaches each job, in order, without a hub, a socket or a client.
import type { WatchEvent } from '../../src/index.js';
import { JobRouter, type RouterOptions, type Routed, type Seen, type TerminalEnd } from '../../src/cloud/watch/router.js';

/** Where one followed job's events and end go. */
export interface FeedTarget {
  event(event: WatchEvent): void;
  end(end: TerminalEnd): void;
}

/** A `JobRouter` whose routed frames go to the target each job was followed with. */
export class RouterFeed {
  readonly router: JobRouter<FeedTarget>;
  readonly #targets = new Set<FeedTarget>();

  constructor(options: RouterOptions) {
    this.router = new JobRouter(options);
  }

  follow(promptId: string, target: FeedTarget): Readonly<Seen> {
    this.#targets.add(target);
    return this.router.follow(promptId, target);
  }

  drain(promptId: string): void {
    for (const routed of this.router.drain(promptId)) this.#deliver(routed);
  }

  handleText(text: string): void {
    this.#deliver(this.router.handleText(text));
  }

  handleBinary(bytes: Uint8Array<ArrayBuffer>, scrub?: (text: string) => string): void {
    this.#deliver(this.router.handleBinary(bytes, scrub));
  }

  unfollow(promptId: string): void {
    this.router.unfollow(promptId);
  }

  markGap(promptId: string): void {
    this.router.markGap(promptId);
  }

  disconnected(): void {
    this.router.disconnected();
  }

  clear(): void {
    this.router.clear();
  }

  get epoch(): number {
    return this.router.epoch;
  }

  get heldBytes(): number {
    return this.router.heldBytes;
  }

  #deliver(routed: Routed<FeedTarget> | undefined): void {
    if (!routed) return;
    for (const target of routed.job ? [routed.job] : this.#targets) {
      target.event(routed.event);
      if (routed.end) target.end(routed.end);
    }
  }
}
