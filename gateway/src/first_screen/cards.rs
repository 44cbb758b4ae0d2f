//! The first cards of the landing and the store as HTML, filled into the pages
//! the frontend's build pre-rendered (`frontend/src/prerender.tsx`,
//! `frontend/dist/prerendered/`), so that a phone shows products before any
//! script has run; React then hydrates them.
//!
//! Hydration keeps the page only where it is exactly what React renders for
//! the same data, so this is a copy of the markup of
//! `frontend/src/features/store/components/ProductCard.tsx`,
//! `frontend/src/features/landing/components/FeaturedModels.tsx` and the
//! store's results (`StorePage.tsx`), with the values they derive (prices as
//! `Intl.NumberFormat('es-CO')` writes them, picture URLs as
//! `productImageUrl.ts` makes them, chat links as `lib/whatsapp.ts` does).
//! `frontend/e2e/first-screen-html.test.mjs` compares it with React's own
//! rendering of the same rows, and proves the hydration keeps the cards.
//! React's server renderer separates adjacent text with `<!-- -->`; so does
//! this.

use std::fmt::Write;

use serde_json::Value;

/// The bucket of uploaded product pictures (`productImageUrl.ts`).
const BUCKET: &str = "store-products";
/// The picture standing in for a product without one (`lib/shop.ts`).
const DEFAULT_IMAGE: &str = "/logo.svg";
/// Store cards whose pictures load first (`FIRST_SCREEN_CARDS` in `queries.ts`).
const FIRST_SCREEN_CARDS: usize = 4;
/// `WhatsAppIcon` of `components/ui/brand-icons.tsx` with the class a chat button gives it.
const WHATSAPP_ICON: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 24 24\" width=\"24\" height=\"24\" fill=\"none\" stroke=\"currentColor\" stroke-width=\"2\" stroke-linecap=\"round\" stroke-linejoin=\"round\" aria-hidden=\"true\" focusable=\"false\" class=\"h-5 w-5 shrink-0\"><path d=\"M3.5 20.5l1.3-4A8.5 8.5 0 1 1 8 19.4z\"></path><path d=\"M9 8.6c0 3.3 3 6.4 6.4 6.4l1.1-1.3-1.9-1-1 .8c-1.1-.4-2.1-1.4-2.5-2.5l.8-1-1-1.9z\"></path></svg>";
/// `buttonClasses('whatsapp', size)` of `components/ui/button.tsx` and the
/// growth `WhatsAppLink` adds, for the two sizes the cards use.
const WHATSAPP_SM: &str = "inline-flex items-center justify-center gap-2 rounded-md font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 disabled:pointer-events-none disabled:opacity-60 aria-disabled:cursor-wait aria-disabled:opacity-60 bg-whatsapp-700 text-white hover:bg-whatsapp-800 focus-visible:outline-whatsapp-700 h-8 px-3 text-sm h-auto min-h-8 py-1.5 text-center leading-tight";
const WHATSAPP_MD: &str = "inline-flex items-center justify-center gap-2 rounded-md font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 disabled:pointer-events-none disabled:opacity-60 aria-disabled:cursor-wait aria-disabled:opacity-60 bg-whatsapp-700 text-white hover:bg-whatsapp-800 focus-visible:outline-whatsapp-700 h-10 px-4 text-sm h-auto min-h-10 py-2 text-center leading-tight";
/// `buttonClasses('outline', 'lg')`: the store's "Mostrar más productos".
const OUTLINE_LG: &str = "inline-flex items-center justify-center gap-2 rounded-md font-medium transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 disabled:pointer-events-none disabled:opacity-60 aria-disabled:cursor-wait aria-disabled:opacity-60 border border-slate-300 bg-white text-slate-900 hover:bg-slate-50 focus-visible:outline-slate-500 h-12 px-6 text-base";
/// `Badge` of `components/ui/badge.tsx`, before its tone.
const BADGE: &str = "inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold";

/// What the cards need of the deployment, as the app's configuration has it.
pub struct Deployment<'a> {
    /// Where the browser reaches the gateway (`supabaseUrl`, or the page's origin).
    pub origin: &'a str,
    /// The chat number; only its digits count.
    pub whatsapp_number: &'a str,
}

/// The landing's featured section title and list, or `None` when a row is
/// not what the app can render the same (the page is then not pre-rendered).
pub fn featured(products: &[Value], deployment: &Deployment<'_>) -> Option<(String, String)> {
    if products.is_empty() {
        return Some((
            "Nuestros productos".to_owned(),
            "<p class=\"text-center text-slate-600\">Celulares, tablets, relojes y accesorios con garantía y envío a toda Colombia.</p>"
                .to_owned(),
        ));
    }
    let mut html = String::from("<ul class=\"grid gap-6 sm:grid-cols-2 lg:grid-cols-3\">");
    for product in products {
        let product = Product::read(product)?;
        let image = image(&product, 360, 280, deployment)?;
        html.push_str("<li><article data-product-card=\"true\" class=\"flex h-full flex-col overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm\"><div class=\"relative bg-gradient-to-b from-brand-50 to-white\">");
        image.write(
            &mut html,
            &escape(product.name),
            "mx-auto h-56 w-full p-6",
            true,
            "(min-width: 1024px) 400px, (min-width: 640px) 50vw, 100vw",
        );
        let _ = write!(
            html,
            "<span class=\"{BADGE} bg-brand-700 text-white absolute left-4 top-4\">Destacado</span></div>\
             <div class=\"flex flex-1 flex-col gap-2 p-5\"><p class=\"text-xs font-semibold uppercase tracking-wide text-slate-500\">{}</p>\
             <h3 class=\"text-lg font-semibold text-slate-900\">{}</h3>",
            escape(product.brand),
            escape(product.name)
        );
        if !product.description.is_empty() {
            let _ = write!(
                html,
                "<p class=\"line-clamp-2 text-sm text-slate-600\">{}</p>",
                escape(product.description)
            );
        }
        let _ = write!(
            html,
            "<p class=\"mt-auto pt-2 text-2xl font-bold text-slate-900\">{}</p>\
             <a href=\"{}\" target=\"_blank\" rel=\"noopener noreferrer\" class=\"{WHATSAPP_MD} mt-2 w-full\">{WHATSAPP_ICON}Solicitar Crédito</a></div></article></li>",
            escape(&format_cop(product.price)),
            escape(&whatsapp_link(
                deployment.whatsapp_number,
                &format!("Hola, quiero solicitar crédito para el {}.", product.name)
            )),
        );
    }
    html.push_str("</ul>");
    Some(("Modelos destacados".to_owned(), html))
}

/// The store's results section for its first page (`total` matching in
/// all), or `None` for an empty page or a row the app would render otherwise.
pub fn store_results(
    products: &[Value],
    total: u64,
    show_stock: bool,
    deployment: &Deployment<'_>,
) -> Option<String> {
    if products.is_empty() {
        return None;
    }
    let count = if total == 1 { "1 producto".to_owned() } else { format!("{total} productos") };
    let mut html = format!(
        "<section aria-labelledby=\"results-title\" aria-busy=\"false\" class=\"mt-6\"><h2 id=\"results-title\" class=\"sr-only\">Productos</h2>\
         <p class=\"mb-4 text-sm text-slate-600\" aria-live=\"polite\">{count}</p>\
         <ul class=\"grid grid-cols-2 gap-3 sm:gap-5 md:grid-cols-3 xl:grid-cols-4 \">"
    );
    for (index, product) in products.iter().enumerate() {
        html.push_str("<li class=\"flex\">");
        store_card(&mut html, &Product::read(product)?, index < FIRST_SCREEN_CARDS, show_stock, deployment)?;
        html.push_str("</li>");
    }
    html.push_str("</ul>");
    if (products.len() as u64) < total {
        let _ = write!(
            html,
            "<div class=\"mt-8 flex justify-center\"><button type=\"button\" class=\"{OUTLINE_LG}\" aria-disabled=\"false\">Mostrar más productos</button></div>"
        );
    }
    html.push_str("</section>");
    Some(html)
}

fn store_card(
    html: &mut String,
    product: &Product<'_>,
    priority: bool,
    show_stock: bool,
    deployment: &Deployment<'_>,
) -> Option<()> {
    let image = image(product, 320, 320, deployment)?;
    let name = escape(product.name);
    html.push_str("<article data-product-card=\"true\" class=\"group flex w-full flex-col overflow-hidden rounded-xl border border-slate-200 bg-white shadow-sm transition-shadow hover:shadow-md\"><div class=\"relative\"><button type=\"button\" class=\"block aspect-square w-full bg-gradient-to-b from-slate-50 to-slate-100 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-brand-700\">");
    image.write(
        html,
        "",
        "h-full w-full p-4",
        priority,
        "(min-width: 1280px) 300px, (min-width: 768px) 33vw, 50vw",
    );
    let _ = write!(html, "<span class=\"sr-only\">Ver detalles de <!-- -->{name}</span></button>");
    if product.featured {
        let _ = write!(
            html,
            "<span class=\"{BADGE} bg-brand-700 text-white pointer-events-none absolute left-3 top-3\">Destacado</span>"
        );
    }
    let (tone, condition) = match product.condition {
        "nuevo" => ("bg-green-100 text-green-800", "Nuevo"),
        "reacondicionado" => ("bg-slate-100 text-slate-800", "Reacondicionado"),
        "usado" => ("bg-slate-100 text-slate-800", "Usado"),
        other => ("bg-slate-100 text-slate-800", other),
    };
    let _ = write!(
        html,
        "</div><div class=\"flex flex-1 flex-col gap-2 p-3 sm:p-4\"><div class=\"flex flex-wrap items-center justify-between gap-x-2 gap-y-1\">\
         <span class=\"min-w-0 max-w-full truncate text-xs font-semibold uppercase tracking-wide text-slate-500\">{}</span>\
         <span class=\"{BADGE} {tone} whitespace-nowrap text-[11px]\">{}</span></div>\
         <h3 class=\"line-clamp-2 min-h-[2.5rem] text-sm font-semibold leading-5 text-slate-900\" title=\"{name}\">{name}</h3>",
        escape(product.brand),
        escape(condition),
    );
    if !product.description.is_empty() {
        let _ = write!(
            html,
            "<p class=\"text-sm text-slate-600\"><span class=\"line-clamp-2\">{}</span><button type=\"button\" class=\"mt-0.5 font-medium text-brand-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-brand-700\" aria-label=\"ver más sobre {name}\">ver más</button></p>",
            escape(product.description)
        );
    }
    if show_stock {
        // `stockTone` and `availabilityText` of `availability.ts`.
        let quantity = product.quantity;
        let tone = match quantity {
            ..=0 => "bg-red-100 text-red-800",
            1..=4 => "bg-yellow-100 text-yellow-900",
            _ => "bg-green-100 text-green-800",
        };
        let text = match quantity {
            ..=0 => "Sin stock".to_owned(),
            1 => "1 unidad disponible".to_owned(),
            _ => format!("{quantity} unidades disponibles"),
        };
        let _ = write!(html, "<span class=\"{BADGE} {tone} self-start\" data-stock=\"true\">{text}</span>");
    }
    let _ = write!(
        html,
        "<p class=\"mt-auto pt-1 text-lg font-bold text-slate-900\">{}</p>\
         <a href=\"{}\" target=\"_blank\" rel=\"noopener noreferrer\" class=\"{WHATSAPP_SM} min-h-9 w-full\">{WHATSAPP_ICON}Consultar disponibilidad</a></div></article>",
        escape(&format_cop(product.price)),
        escape(&whatsapp_link(
            deployment.whatsapp_number,
            &format!("Hola, quiero consultar la disponibilidad de {}.", product.name)
        )),
    );
    Some(())
}

/// The fields of a product row the cards show.
struct Product<'a> {
    name: &'a str,
    description: &'a str,
    brand: &'a str,
    condition: &'a str,
    price: f64,
    quantity: i64,
    featured: bool,
    /// `productImageSrc`: the upload, else the link, else the logo.
    picture: &'a str,
}

impl<'a> Product<'a> {
    fn read(row: &'a Value) -> Option<Self> {
        let text = |key: &str| row.get(key).and_then(Value::as_str).unwrap_or_default();
        let picture = [text("link_image_s3"), text("link_image")].into_iter().find(|url| !url.is_empty());
        Some(Product {
            name: row.get("name")?.as_str()?,
            description: text("description"),
            brand: row
                .get("brands")
                .and_then(|brand| brand.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("Sin marca"),
            condition: row.get("condition")?.as_str()?,
            price: row.get("price")?.as_f64()?,
            quantity: row.get("quantity")?.as_i64()?,
            featured: row.get("featured").and_then(Value::as_bool).unwrap_or(false),
            picture: picture.unwrap_or(DEFAULT_IMAGE),
        })
    }
}

/// A card's `<img>`, as `components/ui/product-image.tsx` renders it.
struct Image {
    src: String,
    src_set: Option<String>,
    /// The logo standing in: drawn faded.
    placeholder: bool,
    /// The box the card asks for, in CSS pixels.
    width: u32,
    height: u32,
}

impl Image {
    fn write(&self, html: &mut String, alt: &str, class: &str, priority: bool, sizes: &str) {
        let _ = write!(html, "<img src=\"{}\"", escape(&self.src));
        if let Some(set) = &self.src_set {
            let _ = write!(html, " srcSet=\"{}\"", escape(set));
        }
        let (width, height) = (self.width, self.height);
        let (loading, fetch) = if priority { ("eager", "high") } else { ("lazy", "auto") };
        let placeholder = if self.placeholder { " p-[26%] opacity-50 grayscale-[30%]" } else { "" };
        let _ = write!(
            html,
            " alt=\"{alt}\" width=\"{width}\" height=\"{height}\" loading=\"{loading}\" fetchPriority=\"{fetch}\" decoding=\"async\" class=\"object-contain{placeholder} {class}\" sizes=\"{sizes}\"/>"
        );
    }
}

/// `productImageUrl(productImageSrc(product), width, height)`: an upload of
/// the bucket through the transform endpoint at 1x and 2x, anything else as
/// it is. `None` where the browser's `decodeURIComponent` would throw.
fn image(product: &Product<'_>, width: u32, height: u32, deployment: &Deployment<'_>) -> Option<Image> {
    let storage = format!("{}/storage/v1", deployment.origin.trim_end_matches('/'));
    let prefix = encode_uri(&format!("{storage}/object/public/{BUCKET}/"));
    let url = product.picture;
    let placeholder = url == DEFAULT_IMAGE;
    let Some(rest) = url.strip_prefix(&prefix).filter(|rest| !rest.is_empty()) else {
        return Some(Image { src: url.to_owned(), src_set: None, placeholder, width, height });
    };
    let path = decode_uri_component(rest.split('?').next().unwrap_or_default())?;
    let base =
        encode_uri(&format!("{storage}/render/image/public/{BUCKET}/{}", path.trim_start_matches('/')));
    let at = |scale: u32| format!("{base}?width={}&height={}&resize=contain", width * scale, height * scale);
    Some(Image {
        src: at(1),
        src_set: Some(format!("{} 1x, {} 2x", at(1), at(2))),
        placeholder,
        width,
        height,
    })
}

/// `https://wa.me/<digits>?text=<message>` (`lib/whatsapp.ts`).
fn whatsapp_link(number: &str, message: &str) -> String {
    let digits: String = number.chars().filter(char::is_ascii_digit).collect();
    format!("https://wa.me/{digits}?text={}", encode_uri_component(message))
}

/// `formatCOP` of `lib/format.ts`: `Intl.NumberFormat('es-CO', {style:
/// 'currency', currency: 'COP'})` with no decimals: `$`, a no-break space,
/// thousands grouped by `.`, halves rounded away from zero.
pub fn format_cop(value: f64) -> String {
    let rounded = value.abs().round();
    let digits = format!("{rounded:.0}");
    let mut grouped = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push('.');
        }
        grouped.push(digit);
    }
    let sign = if value < 0.0 { "-" } else { "" };
    format!("{sign}$\u{a0}{grouped}")
}

/// Text and attribute values as React's server renderer escapes them.
pub fn escape(text: &str) -> String {
    gateway_core::markup::escape(text, "&#x27;")
}

/// JavaScript's `encodeURIComponent`.
fn encode_uri_component(text: &str) -> String {
    percent_encode(text, b"-_.!~*'()")
}

/// JavaScript's `encodeURI`: also keeps what separates a URL's parts.
fn encode_uri(text: &str) -> String {
    percent_encode(text, b"-_.!~*'();,/?:@&=+$#")
}

fn percent_encode(text: &str, kept: &[u8]) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || kept.contains(&byte) {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// JavaScript's `decodeURIComponent`, `None` where it throws (a `%` not
/// followed by two hex digits, or bytes that are no UTF-8).
fn decode_uri_component(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_read_as_intl_number_format_writes_them_for_colombia() {
        let cases = [
            (0.0, "$\u{a0}0"),
            (999.0, "$\u{a0}999"),
            (1000.0, "$\u{a0}1.000"),
            (1_299_000.0, "$\u{a0}1.299.000"),
            (12_345_678.6, "$\u{a0}12.345.679"),
            (2.5, "$\u{a0}3"),
            (-5.0, "-$\u{a0}5"),
        ];
        for (value, text) in cases {
            assert_eq!(format_cop(value), text, "{value}");
        }
    }

    #[test]
    fn uri_encoding_keeps_what_javascript_keeps() {
        assert_eq!(
            encode_uri_component("Hola, ñ \"x\" & <y>!*'()"),
            "Hola%2C%20%C3%B1%20%22x%22%20%26%20%3Cy%3E!*'()"
        );
        assert_eq!(encode_uri("http://h:1/a b/ñ?x=1&y=2#z"), "http://h:1/a%20b/%C3%B1?x=1&y=2#z");
        assert_eq!(decode_uri_component("a%20b%2Fc").as_deref(), Some("a b/c"));
        assert_eq!(decode_uri_component("100%"), None, "decodeURIComponent throws on a lone %");
        assert_eq!(decode_uri_component("%FF"), None, "and on bytes that are no UTF-8");
    }

    #[test]
    fn an_upload_is_shown_through_the_transform_endpoint_and_a_link_as_it_is() {
        let deployment = Deployment { origin: "http://h:1/", whatsapp_number: "" };
        let product = |picture| Product {
            name: "",
            description: "",
            brand: "",
            condition: "nuevo",
            price: 0.0,
            quantity: 0,
            featured: false,
            picture,
        };
        let upload = image(
            &product("http://h:1/storage/v1/object/public/store-products/a%20b/c.png"),
            320,
            320,
            &deployment,
        )
        .unwrap();
        assert_eq!(
            upload.src,
            "http://h:1/storage/v1/render/image/public/store-products/a%20b/c.png?width=320&height=320&resize=contain"
        );
        assert_eq!(
            upload.src_set.as_deref(),
            Some(
                "http://h:1/storage/v1/render/image/public/store-products/a%20b/c.png?width=320&height=320&resize=contain 1x, \
                 http://h:1/storage/v1/render/image/public/store-products/a%20b/c.png?width=640&height=640&resize=contain 2x"
            )
        );
        let link = image(&product("https://cdn.example/x.png"), 320, 320, &deployment).unwrap();
        assert_eq!(
            (link.src.as_str(), link.src_set, link.placeholder),
            ("https://cdn.example/x.png", None, false)
        );
        assert!(image(&product(DEFAULT_IMAGE), 320, 320, &deployment).unwrap().placeholder);
        assert!(
            image(&product("http://h:1/storage/v1/object/public/store-products/%E0"), 320, 320, &deployment)
                .is_none()
        );
    }

    #[test]
    fn text_is_escaped_as_react_escapes_it() {
        assert_eq!(escape("a & <b> \"c\" 'd'"), "a &amp; &lt;b&gt; &quot;c&quot; &#x27;d&#x27;");
    }
}
