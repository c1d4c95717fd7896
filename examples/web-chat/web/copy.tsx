import { useEffect, useState } from 'react';
import { Icon } from './icons.js';

/**
 * Copies `text` to the clipboard and says so for a moment ("Copied", also announced); a browser that
 * refuses (no permission, not a secure page) gets "Copy failed" instead of silence. `compact`: the
 * icon alone, named by `label`.
 */
export function CopyButton({ text, label, compact = false }: { text: string; label: string; compact?: boolean }) {
  const [outcome, setOutcome] = useState<'Copied' | 'Copy failed' | null>(null);
  useEffect(() => {
    if (outcome === null) return;
    const shown = setTimeout(() => setOutcome(null), 2_000);
    return () => clearTimeout(shown);
  }, [outcome]);
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setOutcome('Copied'),
      (error: unknown) => {
        console.error('[web-chat] copying failed:', error);
        setOutcome('Copy failed');
      },
    );
  return (
    <>
      <button type="button" className={compact ? 'icon-button' : 'small-button'} aria-label={outcome ?? label} title={label} onClick={copy}>
        <Icon name={outcome === 'Copied' ? 'check' : 'copy'} />
        {!compact && <span>{outcome ?? 'Copy'}</span>}
      </button>
      <span className="visually-hidden" role="status">
        {outcome ?? ''}
      </span>
    </>
  );
}
