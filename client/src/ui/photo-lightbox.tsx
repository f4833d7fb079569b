import { useEffect, useRef } from 'react';

type TProps = { src: string; alt: string; caption: string | null; onClose: () => void };

/**
 * A photo full size over the page. A modal <dialog>: focus stays inside, Escape and the backdrop
 * close it, and focus returns to the thumbnail that opened it.
 */
export function PhotoLightbox({ src, alt, caption, onClose }: TProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    dialog.current?.showModal();
    close.current?.focus();
    return () => opener?.focus();
  }, []);
  return (
    <dialog
      ref={dialog}
      className="lightbox"
      aria-label={caption ? `Photo: ${caption}` : 'Photo'}
      onClose={onClose}
      // A click on the backdrop lands on the dialog itself, not on its content.
      onClick={(event) => event.target === event.currentTarget && dialog.current?.close()}
    >
      <div className="lightbox-bar">
        <a href={src} target="_blank" rel="noopener noreferrer">
          Open in a new tab
        </a>
        <button type="button" className="button small" onClick={() => dialog.current?.close()} ref={close}>
          Close
        </button>
      </div>
      <img src={src} alt={alt} />
      {caption && <p className="lightbox-caption">{caption}</p>}
    </dialog>
  );
}
