// @@SOURCE@@

public static class SmolHarness
{
    private static string SmolLine()
    {
        string line = System.Console.In.ReadLine();
        return line ?? "";
    }

    private static int SmolInt()
    {
        return int.Parse(SmolLine(), System.Globalization.CultureInfo.InvariantCulture);
    }

    // A str result (the str type of smolscript/types.py) is printable ASCII, chars 32..126:
    // null (which Write spells as nothing) or any other char, a control character, a line end
    // or a look-alike, is a type mismatch, reported on stderr as types.parse_type_mismatch
    // reads it, and the run exits with its status.
    private static string SmolCheckedStr(string text)
    {
        string why = null;
        if (text == null)
        {
            why = "null";
        }
        else
        {
            for (int i = 0; i < text.Length && why == null; i++)
            {
                if (text[i] < ' ' || text[i] > '~')
                {
                    why = "string with U+" + ((int)text[i]).ToString("X4", System.Globalization.CultureInfo.InvariantCulture)
                        + " at index " + i.ToString(System.Globalization.CultureInfo.InvariantCulture) + " (not printable ASCII)";
                }
            }
        }
        if (why == null)
        {
            return text;
        }
        System.Console.Out.Flush();
        System.Console.Error.Write("smolscript-harness: result type mismatch: expected str, got " + why + "\n");
        System.Console.Error.Flush();
        System.Environment.Exit(97);
        return null;
    }

    // The result `text`, framed with the job's nonce (smolscript/frames.py), in one write once
    // the entry point has returned: the host reads only this block, so nothing the candidate
    // prints stands in for it.
    private static void SmolEmit(string nonce, string text)
    {
        System.Console.Out.Write("smolscript-result-begin " + nonce + "\n" + text + "\nsmolscript-result-end " + nonce + "\n");
        System.Console.Out.Flush();
    }

    public static void Main()
    {
        // The nonce is the first stdin line, kept only in this method.
        string smolNonce = SmolLine();
        // @@READ_ARGS@@
        // @@CALL_AND_PRINT@@
    }
}
