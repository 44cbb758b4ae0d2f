import { Mail, Phone } from 'lucide-react';
import { FacebookIcon, InstagramIcon, TikTokIcon } from '@/components/ui/brand-icons';
import { appConfig } from '@/lib/config';
import { useShopFace } from '@/lib/company';
import { configuredSocialLinks, type SocialNetwork } from '@/lib/shop';

const socialIcons: Record<SocialNetwork, typeof FacebookIcon> = {
  facebook: FacebookIcon,
  instagram: InstagramIcon,
  tiktok: TikTokIcon,
};

/** Social links, contact e-mail and phone, copyright and developer credit (spec section 2). */
export function LandingFooter() {
  const { socialLinks: configured } = appConfig();
  const { name: shopName, email: contactEmail, phone: contactPhone } = useShopFace();
  const socialLinks = configuredSocialLinks(configured);
  const year = new Date().getFullYear();
  return (
    <footer className="bg-slate-950 text-slate-300">
      <div className="mx-auto grid max-w-7xl gap-10 px-4 py-12 sm:px-6 md:grid-cols-3">
        <div>
          <div className="flex items-center gap-2">
            <img src="/logo.svg" alt="" width={32} height={32} className="h-8 w-8" />
            <span className="text-lg font-bold text-white">{shopName}</span>
          </div>
          <p className="mt-3 max-w-xs text-sm leading-6 text-slate-400">
            Celulares y accesorios a crédito solo con tu cédula. Desde el Meta para toda Colombia.
          </p>
        </div>
        <div>
          <h2 className="text-sm font-semibold text-white">Contacto</h2>
          <ul className="mt-3 space-y-2 text-sm">
            {contactEmail ? (
              <li>
                <a href={`mailto:${contactEmail}`} className="inline-flex items-center gap-2 hover:text-white hover:underline">
                  <Mail aria-hidden="true" className="h-4 w-4" />
                  {contactEmail}
                </a>
              </li>
            ) : null}
            {contactPhone ? (
              <li>
                <a href={`tel:${contactPhone.replace(/[^\d+]/g, '')}`} className="inline-flex items-center gap-2 hover:text-white hover:underline">
                  <Phone aria-hidden="true" className="h-4 w-4" />
                  {contactPhone}
                </a>
              </li>
            ) : null}
          </ul>
        </div>
        {/* Only the networks configured; none, no column. */}
        {socialLinks.length > 0 ? (
          <div>
            <h2 className="text-sm font-semibold text-white">Síguenos</h2>
            <ul className="mt-3 flex gap-3">
              {socialLinks.map((link) => {
                const Icon = socialIcons[link.network];
                return (
                  <li key={link.network}>
                    <a
                      href={link.href}
                      target="_blank"
                      rel="noopener noreferrer"
                      aria-label={link.label}
                      className="inline-flex h-10 w-10 items-center justify-center rounded-full bg-slate-800 text-slate-200 hover:bg-slate-700 hover:text-white focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white"
                    >
                      <Icon className="h-5 w-5" />
                    </a>
                  </li>
                );
              })}
            </ul>
          </div>
        ) : null}
      </div>
      <div className="border-t border-slate-800">
        <div className="mx-auto flex max-w-7xl flex-col gap-2 px-4 py-5 text-xs text-slate-400 sm:flex-row sm:justify-between sm:px-6">
          <p>
            © {year} {shopName}. Todos los derechos reservados.
          </p>
          <p>Desarrollado por el equipo web de {shopName}.</p>
        </div>
      </div>
    </footer>
  );
}
