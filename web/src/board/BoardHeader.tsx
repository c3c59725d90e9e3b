import { useId, useRef } from 'react';
import type { Label, Member } from '../api.ts';
import { t } from '../strings.ts';
import { type Filter, isFiltering } from './filters.ts';
import type { Panel } from './settings/BoardSettings.tsx';
import { settingsText } from './settings/strings.ts';

/** The board's name, its filters, the shortcuts' help and the board menu. */
export function BoardHeader(props: {
  name: string;
  boardId: string;
  filter: Filter;
  setFilter: (filter: Filter) => void;
  labels: Label[];
  members: Member[];
  onHelp: () => void;
  canDelete: boolean;
  onPanel: (panel: Panel) => void;
  onDelete: () => void;
}) {
  const { filter, setFilter } = props;
  const menu = useRef<HTMLDetailsElement>(null);
  /** A menu item: the menu closes, then the item acts. */
  const item = (run: () => void) => () => {
    if (menu.current) menu.current.open = false;
    run();
  };
  const textId = useId();
  const dueId = useId();
  const toggle = (ids: string[], id: string) => (ids.includes(id) ? ids.filter((one) => one !== id) : [...ids, id]);
  return (
    <div className="board-header">
      <h1 className="board-name">{props.name}</h1>
      <div className="filters" role="group" aria-label={t.filters}>
        <label htmlFor={textId} className="visually-hidden">
          {t.filterText}
        </label>
        <input
          id={textId}
          type="search"
          placeholder={t.filterText}
          value={filter.text}
          onChange={(event) => setFilter({ ...filter, text: event.target.value })}
        />
        <details className="popover">
          <summary>
            {t.filterLabels}
            {filter.labels.length ? ` (${filter.labels.length})` : ''}
          </summary>
          <fieldset>
            <legend className="visually-hidden">{t.filterLabels}</legend>
            {props.labels.map((label) => (
              <label key={label._id} className="check">
                <input
                  type="checkbox"
                  checked={filter.labels.includes(label._id)}
                  onChange={() => setFilter({ ...filter, labels: toggle(filter.labels, label._id) })}
                />
                <span className="swatch" style={{ background: label.color.hex }} aria-hidden="true" />
                {label.name || label.color.name}
              </label>
            ))}
          </fieldset>
        </details>
        <details className="popover">
          <summary>
            {t.filterMembers}
            {filter.members.length ? ` (${filter.members.length})` : ''}
          </summary>
          <fieldset>
            <legend className="visually-hidden">{t.filterMembers}</legend>
            {props.members.map((member) => (
              <label key={member._id} className="check">
                <input
                  type="checkbox"
                  checked={filter.members.includes(member._id)}
                  onChange={() => setFilter({ ...filter, members: toggle(filter.members, member._id) })}
                />
                {member.fullName}
              </label>
            ))}
          </fieldset>
        </details>
        <label htmlFor={dueId} className="visually-hidden">
          {t.filterDue}
        </label>
        <select id={dueId} value={filter.due} onChange={(event) => setFilter({ ...filter, due: event.target.value as Filter['due'] })}>
          <option value="">{t.dueAny}</option>
          <option value="overdue">{t.dueOverdueOption}</option>
          <option value="day">{t.dueNextDay}</option>
          <option value="week">{t.dueNextWeek}</option>
          <option value="none">{t.dueNone}</option>
        </select>
        {isFiltering(filter) ? (
          <button type="button" onClick={() => setFilter({ text: '', labels: [], members: [], due: '' })}>
            {t.clearFilters}
          </button>
        ) : null}
        <button type="button" onClick={props.onHelp} aria-label={t.shortcuts}>
          ?
        </button>
        <details className="popover board-menu" ref={menu}>
          <summary>{settingsText.menu}</summary>
          <div className="menu">
            <button type="button" onClick={item(() => props.onPanel('labels'))}>
              {settingsText.labels}
            </button>
            <button type="button" onClick={item(() => props.onPanel('archive'))}>
              {settingsText.archived}
            </button>
            <button type="button" onClick={item(() => props.onPanel('settings'))}>
              {settingsText.settings}
            </button>
            {props.canDelete ? (
              <button type="button" onClick={item(props.onDelete)}>
                {settingsText.deleteBoard}
              </button>
            ) : null}
          </div>
        </details>
      </div>
    </div>
  );
}
