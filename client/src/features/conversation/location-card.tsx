import type { TLocation } from '../../../../shared/communication';

/** A shared location: the place and a map link (OpenStreetMap: no key, no tracking script). */
export function LocationCard({ location }: { location: TLocation }) {
  const { latitude, longitude } = location;
  const map = `https://www.openstreetmap.org/?mlat=${latitude}&mlon=${longitude}#map=17/${latitude}/${longitude}`;
  const coordinates = `${latitude.toFixed(5)}, ${longitude.toFixed(5)}`;
  return (
    <div className="location-card">
      <svg
        className="location-pin"
        aria-hidden="true"
        width="20"
        height="20"
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
      >
        <path d="M12 22s7-6.1 7-12a7 7 0 0 0-14 0c0 5.9 7 12 7 12z" />
        <circle cx="12" cy="10" r="2.5" />
      </svg>
      <span>
        <strong>{location.name ?? (location.address ? 'Shared location' : `Location ${coordinates}`)}</strong>
        {location.address && <span className="location-address">{location.address}</span>}
        <a href={map} target="_blank" rel="noopener noreferrer">
          Open map
        </a>
      </span>
    </div>
  );
}
