'use client';

import ReactDiffViewer, { DiffMethod } from 'react-diff-viewer-continued';

/** Side-by-side (or unified) text diff of the two canonical lock texts, unchanged regions folded. */
export default function TextDiff({ from, to, split, leftTitle, rightTitle }: { from: string; to: string; split: boolean; leftTitle: string; rightTitle: string }) {
  return (
    <ReactDiffViewer
      oldValue={from}
      newValue={to}
      splitView={split}
      compareMethod={DiffMethod.WORDS}
      showDiffOnly
      extraLinesSurroundingDiff={3}
      leftTitle={leftTitle}
      rightTitle={split ? rightTitle : undefined}
      disableWorker
      styles={{ contentText: { fontSize: '12px', lineHeight: '18px' }, line: { fontSize: '12px' } }}
    />
  );
}
