import type { Page } from 'playwright-core';

/** One thing a hand does: a key pressed and let go, or a press of the mouse's button at a point. */
export type TStroke = { key: string } | { pressAt: { x: number; y: number } };

const NAMED: Record<string, { code: string; keyCode: number; text?: string }> = {
  Enter: { code: 'Enter', keyCode: 13, text: '\r' },
  Tab: { code: 'Tab', keyCode: 9 },
  ' ': { code: 'Space', keyCode: 32, text: ' ' },
  '.': { code: 'Period', keyCode: 190, text: '.' },
};

function keyEvents(key: string) {
  const named = NAMED[key];
  const letter = /^[a-z]$/i.test(key)
    ? { code: `Key${key.toUpperCase()}`, keyCode: key.toUpperCase().charCodeAt(0), text: key }
    : undefined;
  const info = named ?? letter;
  if (!info) throw new Error(`keys-at-once: no key for ${JSON.stringify(key)}`);
  const common = { key, code: info.code, windowsVirtualKeyCode: info.keyCode, nativeVirtualKeyCode: info.keyCode };
  return [
    { type: info.text ? 'keyDown' : 'rawKeyDown', ...common, ...(info.text ? { text: info.text, unmodifiedText: info.text } : {}) },
    { type: 'keyUp', ...common },
  ] as const;
}

/**
 * The strokes sent to the page one right after another, none waiting for the page to answer the
 * one before (as a fast typist's keys come): the browser queues them in order, so the page meets
 * the next key before it draws its next frame. `page.keyboard` waits for each key to be taken.
 */
export async function strokesAtOnce(page: Page, strokes: TStroke[]): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const sent: Promise<unknown>[] = [];
    for (const stroke of strokes) {
      if ('key' in stroke) {
        for (const event of keyEvents(stroke.key)) sent.push(cdp.send('Input.dispatchKeyEvent', event));
      } else {
        const at = { ...stroke.pressAt, button: 'left' as const, clickCount: 1 };
        sent.push(cdp.send('Input.dispatchMouseEvent', { type: 'mousePressed', ...at }));
        sent.push(cdp.send('Input.dispatchMouseEvent', { type: 'mouseReleased', ...at }));
      }
    }
    await Promise.all(sent);
  } finally {
    await cdp.detach();
  }
}

/** Each character of `text` as a key stroke. */
export const keysOf = (text: string): TStroke[] => [...text].map((key) => ({ key }));
