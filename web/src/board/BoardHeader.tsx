import {
  Archive,
  CalendarDays,
  ChartGantt,
  Download,
  Filter as FilterIcon,
  Kanban,
  Keyboard,
  LayoutTemplate,
  MoreHorizontal,
  Repeat,
  Settings,
  SlidersHorizontal,
  Table2,
  Tag,
  Trash2,
  UserPlus,
  Users,
  Zap,
} from 'lucide-react';
import type { ReactNode } from 'react';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import type { Label, Member } from '../api.ts';
import { fieldsText } from '../fields/strings.ts';
import { t } from '../strings.ts';
import { Avatar, AvatarStack, type Person } from '../ui/Avatar.tsx';
import { Menu, Popover } from '../ui/Menu.tsx';
import { Tip } from '../ui/Tooltip.tsx';
import { type Filter, isFiltering } from './filters.ts';
import { recurrencesText } from './recurrences/strings.ts';
import { rulesText } from './rules/strings.ts';
import type { Panel } from './settings/BoardSettings.tsx';
import { settingsText } from './settings/strings.ts';
import { tableText } from './table/strings.ts';
import { boardTemplatesText } from './templates/strings.ts';

export const BOARD_VIEWS = ['board', 'table', 'calendar', 'timeline'] as const;
export type BoardViewName = (typeof BOARD_VIEWS)[number];
const VIEWS: { view: BoardViewName; icon: typeof Kanban }[] = [
  { view: 'board', icon: Kanban },
  { view: 'table', icon: Table2 },
  { view: 'calendar', icon: CalendarDays },
  { view: 'timeline', icon: ChartGantt },
];

/** The board's name, its filters, the shortcuts' help and the board menu. */
export function BoardHeader(props: {
  name: string;
  boardId: string;
  filter: Filter;
  setFilter: (filter: Filter) => void;
  labels: Label[];
  members: Member[];
  /** Who else is viewing the board now (the live stream's presence). */
  viewers: Person[];
  onHelp: () => void;
  canDelete: boolean;
  onPanel: (panel: Panel) => void;
  onDelete: () => void;
  onShare: () => void;
  onRules: () => void;
  onRecurrences: () => void;
  onMakeTemplate: () => void;
  /** The view shown, and the link to each (the same filters and card). */
  view: BoardViewName;
  viewLink: (view: BoardViewName) => string;
}) {
  const { filter, setFilter } = props;
  // on a phone the filters wait behind a button, so the header keeps to one row
  const [filtersOpen, setFiltersOpen] = useState(false);
  const filtersId = useId();
  const textId = useId();
  const dueId = useId();
  const toggle = (ids: string[], id: string) => (ids.includes(id) ? ids.filter((one) => one !== id) : [...ids, id]);
  return (
    <div className="board-header">
      <h1 className="board-name">{props.name}</h1>
      {props.members.length ? <AvatarStack people={props.members} label={t.boardMembers(props.members.length)} /> : null}
      {props.viewers.length ? (
        <AvatarStack people={props.viewers} max={3} label={t.viewingNow(props.viewers.length)} className="viewers" title={t.viewingNowTitle} />
      ) : null}
      <button type="button" className="icon-button share-button" onClick={props.onShare}>
        <UserPlus size={18} aria-hidden="true" />
        <span className="button-label">{t.share}</span>
      </button>
      <nav className="view-switch" aria-label={tableText.views}>
        {VIEWS.map(({ view, icon: Icon }) => (
          <Link key={view} to={props.viewLink(view)} aria-current={props.view === view ? 'page' : undefined}>
            <Icon size={16} aria-hidden="true" />
            <span className="view-label">{tableText[view]}</span>
          </Link>
        ))}
      </nav>
      <button
        type="button"
        className="icon-button phone-only"
        aria-expanded={filtersOpen}
        aria-controls={filtersId}
        onClick={() => setFiltersOpen(!filtersOpen)}
      >
        <FilterIcon size={18} aria-hidden="true" />
        <span className="button-label">{t.showFilters}</span>
        {isFiltering(filter) ? (
          <span className="filtering-dot" aria-hidden="true">
            •
          </span>
        ) : null}
      </button>
      <div id={filtersId} className={`filters${filtersOpen ? ' open' : ''}`} role="group" aria-label={t.filters}>
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
        <Popover label={t.filterLabels} trigger={<FilterTrigger icon={<Tag size={16} />} text={t.filterLabels} count={filter.labels.length} />}>
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
        </Popover>
        <Popover label={t.filterMembers} trigger={<FilterTrigger icon={<Users size={16} />} text={t.filterMembers} count={filter.members.length} />}>
          <fieldset>
            <legend className="visually-hidden">{t.filterMembers}</legend>
            {props.members.map((member) => (
              <label key={member._id} className="check">
                <input
                  type="checkbox"
                  checked={filter.members.includes(member._id)}
                  onChange={() => setFilter({ ...filter, members: toggle(filter.members, member._id) })}
                />
                <Avatar person={member} decorative />
                {member.fullName}
              </label>
            ))}
          </fieldset>
        </Popover>
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
      </div>
      <Tip label={t.shortcuts}>
        <button type="button" className="icon-button desk-only" onClick={props.onHelp} aria-label={t.shortcuts}>
          <Keyboard size={18} aria-hidden="true" />
        </button>
      </Tip>
      <Menu
        label={settingsText.menu}
        trigger={<MoreHorizontal size={18} aria-hidden="true" />}
        items={[
          { label: settingsText.labels, icon: <Tag size={16} />, onSelect: () => props.onPanel('labels') },
          { label: fieldsText.customFields, icon: <SlidersHorizontal size={16} />, onSelect: () => props.onPanel('fields') },
          { label: settingsText.archived, icon: <Archive size={16} />, onSelect: () => props.onPanel('archive') },
          { label: rulesText.menu, icon: <Zap size={16} />, onSelect: props.onRules },
          { label: recurrencesText.menu, icon: <Repeat size={16} />, onSelect: props.onRecurrences },
          { label: boardTemplatesText.menu, icon: <LayoutTemplate size={16} />, onSelect: props.onMakeTemplate },
          { label: settingsText.exportMenu, icon: <Download size={16} />, onSelect: () => props.onPanel('export') },
          { label: settingsText.settings, icon: <Settings size={16} />, onSelect: () => props.onPanel('settings') },
          ...(props.canDelete ? [{ label: settingsText.deleteBoard, icon: <Trash2 size={16} />, danger: true, onSelect: props.onDelete }] : []),
        ]}
      />
    </div>
  );
}

/** A filter's button: its icon, its name, and how many of its values are chosen. */
function FilterTrigger({ icon, text, count }: { icon: ReactNode; text: string; count: number }) {
  return (
    <>
      <span aria-hidden="true" className="trigger-icon">
        {icon}
      </span>
      {text}
      {count ? ` (${count})` : ''}
    </>
  );
}
