import { t } from '../strings.ts';

/** The board's place while its code or its read is on the way: three lists of grey cards. */
export function BoardSkeleton() {
  return (
    <div className="canvas" aria-busy="true" aria-label={t.loading}>
      {[0, 1, 2].map((list) => (
        <div key={list} className="list skeleton">
          {[0, 1, 2, 3].map((card) => (
            <div key={card} className="card skeleton-card" />
          ))}
        </div>
      ))}
    </div>
  );
}
