import { useState, type DragEvent } from 'react';
import { UPLOAD_LIMITS_TEXT } from '../composer';

const hasFiles = (event: DragEvent) => event.dataTransfer.types.includes('Files');

/** A file dropped anywhere on the element these handlers go on: `onDrop` gets the first one. */
export function useFileDrop(onDrop: (file: File) => void) {
  const [dragging, setDragging] = useState(false);
  const handlers = {
    onDragOver: (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
      setDragging(true);
    },
    onDragLeave: (event: DragEvent) => {
      if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
    },
    onDrop: (event: DragEvent) => {
      if (!hasFiles(event)) return;
      event.preventDefault();
      setDragging(false);
      const dropped = event.dataTransfer.files[0];
      if (dropped) onDrop(dropped);
    },
  };
  return { dragging, handlers };
}

/** Over the conversation while a file is dragged over it: what dropping does, and the limits. */
export function DropOverlay() {
  return (
    <div className="drop-overlay" aria-hidden="true">
      <strong>Drop the file to attach it</strong>
      <span>{UPLOAD_LIMITS_TEXT}</span>
    </div>
  );
}
