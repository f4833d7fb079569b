/**
 * Uploads in progress, in this process, across both ways in (`POST /api/media` and the resumable
 * `/api/uploads`): at most MAX_PER_USER per person and MAX_UPLOADS in all (more is refused with
 * 429, nothing read), and at most MAX_DB_COPIES copying into the database at once (the others wait
 * their turn): many large uploads cannot take the connections the webhook needs, nor fill the disk.
 * A slot is held only while bytes may still arrive; the idle limit frees a stalled one.
 */
const MAX_UPLOADS = 8;
const MAX_PER_USER = 3;
const MAX_DB_COPIES = 2;

export type TUploadSlot = {
  /** Idempotent: the slot is given back once however many paths end the upload. */
  release: () => void;
  /** Waits for a turn to copy into the database; call the returned function when done. */
  databaseTurn: () => Promise<() => void>;
};

export class UploadSlots {
  private total = 0;
  private readonly perUser = new Map<number, number>();
  private copying = 0;
  private readonly waiting: (() => void)[] = [];

  /** A slot for this person's upload, or null when they or everyone have as many as allowed. */
  take(userId: number): TUploadSlot | null {
    const mine = this.perUser.get(userId) ?? 0;
    if (this.total >= MAX_UPLOADS || mine >= MAX_PER_USER) return null;
    this.total++;
    this.perUser.set(userId, mine + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.perUser.get(userId) ?? 1) - 1;
        if (left > 0) this.perUser.set(userId, left);
        else this.perUser.delete(userId);
      },
      databaseTurn: () => this.takeDatabaseTurn(),
    };
  }

  /** A turn to copy into the database, outside any slot (an upload finished by another request). */
  async takeDatabaseTurn(): Promise<() => void> {
    if (this.copying >= MAX_DB_COPIES) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.copying++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.copying--;
      this.waiting.shift()?.();
    };
  }

  /** Slots in use (tests and logs). */
  get inUse(): number {
    return this.total;
  }
}

/** One per process: both upload routes draw on the same limits. */
export const uploadSlots = new UploadSlots();

export const BUSY_MESSAGE = 'Other uploads are under way: try again in a moment.';
