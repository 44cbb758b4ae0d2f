import type { SVGProps } from 'react';

// lucide-react ships no brand logos, so the few the public pages need are drawn
// here in lucide's style (24 px grid, 2 px stroke, currentColor).
type IconProps = SVGProps<SVGSVGElement>;

function Icon(props: IconProps) {
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox="0 0 24 24"
      width="24"
      height="24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      {...props}
    />
  );
}

/** A chat bubble with a handset: WhatsApp's mark, simplified. */
export function WhatsAppIcon(props: IconProps) {
  return (
    <Icon {...props}>
      <path d="M3.5 20.5l1.3-4A8.5 8.5 0 1 1 8 19.4z" />
      <path d="M9 8.6c0 3.3 3 6.4 6.4 6.4l1.1-1.3-1.9-1-1 .8c-1.1-.4-2.1-1.4-2.5-2.5l.8-1-1-1.9z" />
    </Icon>
  );
}

export function FacebookIcon(props: IconProps) {
  return (
    <Icon {...props}>
      <path d="M18 2h-3a5 5 0 0 0-5 5v3H7v4h3v8h4v-8h3l1-4h-4V7a1 1 0 0 1 1-1h3z" />
    </Icon>
  );
}

export function InstagramIcon(props: IconProps) {
  return (
    <Icon {...props}>
      <rect x="2" y="2" width="20" height="20" rx="5" />
      <circle cx="12" cy="12" r="4" />
      <path d="M17.5 6.5h.01" />
    </Icon>
  );
}

export function TikTokIcon(props: IconProps) {
  return (
    <Icon {...props}>
      <path d="M16 3c.4 2.6 2 4.2 4.5 4.5v3.2A8 8 0 0 1 16 9.3V15a6 6 0 1 1-6-6v3.3a2.8 2.8 0 1 0 2.8 2.8V3z" />
    </Icon>
  );
}
