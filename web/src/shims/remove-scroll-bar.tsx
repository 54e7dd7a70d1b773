// Stands in for react-remove-scroll-bar (used by Radix's dialogs to lock the page's scroll): the
// original injects a <style> element, which the dashboard's Content-Security-Policy (style-src
// 'self') refuses. This one marks the body; styles.css holds the rule. Aliased in vite.config.ts.
import { useEffect } from 'react';

export const zeroRightClassName = 'right-scroll-bar-position';
export const fullWidthClassName = 'width-before-scroll-bar';
export const noScrollbarsClassName = 'with-scroll-bars-hidden';
export const removedBarSizeVariable = '--removed-body-scroll-bar-size';
export const getGapWidth = () => ({ left: 0, top: 0, right: 0, gap: 0 });

const LOCK = 'data-scroll-locked';

export function RemoveScrollBar() {
  useEffect(() => {
    const body = document.body;
    body.setAttribute(LOCK, String(Number(body.getAttribute(LOCK) ?? 0) + 1));
    return () => {
      const left = Number(body.getAttribute(LOCK) ?? 1) - 1;
      if (left > 0) body.setAttribute(LOCK, String(left));
      else body.removeAttribute(LOCK);
    };
  }, []);
  return null;
}
