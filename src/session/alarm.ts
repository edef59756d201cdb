// A Durable Object's one alarm, kept at the earliest moment anything is due, with no storage read per change.
//
// Only an earlier alarm is written at once. Moving one later (the fix arrived: the 30 s clock stops) can
// wait: the early alarm finds nothing due and sets the right time then. So an SOS costs one alarm write,
// not two, and none after its PSAPs are delivered (each write is a commit of its own, locally synced).

/** What the alarm needs of the object's storage. */
export type AlarmStorage = Pick<DurableObjectStorage, "getAlarm" | "setAlarm" | "deleteAlarm">;

export class EarliestAlarm {
  readonly #storage: AlarmStorage;
  /** The alarm as last set (null: none). */
  #at: number | null = null;

  constructor(storage: AlarmStorage) {
    this.#storage = storage;
  }

  /** Reads the alarm as stored: once, before the object serves anything. */
  async load(): Promise<void> {
    this.#at = await this.#storage.getAlarm();
  }

  /** The runtime cleared the alarm as it fired it. */
  fired(): void {
    this.#at = null;
  }

  /** Sets the alarm to the earliest of `times` (null: not pending) when that is sooner than the one set. */
  want(...times: (number | null)[]): void {
    const pending = times.filter((time): time is number => time !== null);
    if (pending.length === 0) return;
    const wanted = Math.min(...pending);
    if (this.#at !== null && wanted >= this.#at) return;
    void this.#storage.setAlarm(wanted);
    this.#at = wanted;
  }

  /** No alarm any more (the object forgets its session). */
  clear(): void {
    this.#at = null;
    void this.#storage.deleteAlarm();
  }
}
